"""Configuration files, where skilldeck keeps things, and trust in a project's configuration.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._config import (
    Budget as Budget,
)
from skilldeck._config import (
    Config as Config,
)
from skilldeck._config import (
    config_path as config_path,
)
from skilldeck._config import (
    load_config as load_config,
)
from skilldeck._config import (
    project_notices as project_notices,
)
from skilldeck._config import (
    revoke_project_trust as revoke_project_trust,
)
from skilldeck._config import (
    trust_project_config as trust_project_config,
)
from skilldeck._config import (
    update_config as update_config,
)
from skilldeck._configtrust import (
    TrustedConfig as TrustedConfig,
)
from skilldeck._configtrust import (
    UntrustedSettings as UntrustedSettings,
)
from skilldeck._configtrust import (
    trusted_configs as trusted_configs,
)
from skilldeck._paths import (
    Dirs as Dirs,
)
from skilldeck._paths import (
    dirs as dirs,
)

__all__ = [
    "Budget",
    "Config",
    "Dirs",
    "TrustedConfig",
    "UntrustedSettings",
    "config_path",
    "dirs",
    "load_config",
    "project_notices",
    "revoke_project_trust",
    "trust_project_config",
    "trusted_configs",
    "update_config",
]
