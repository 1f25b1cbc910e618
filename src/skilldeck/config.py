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
    project_base as project_base,
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
from skilldeck._errors import (
    root_flags as root_flags,
)
from skilldeck._errors import (
    with_roots as with_roots,
)
from skilldeck._extras import (
    install_hint as install_hint,
)
from skilldeck._paths import (
    PROJECT_DIR as PROJECT_DIR,
)
from skilldeck._paths import (
    Dirs as Dirs,
)
from skilldeck._paths import (
    dirs as dirs,
)
from skilldeck._paths import (
    install_base as install_base,
)
from skilldeck._paths import (
    user_setting as user_setting,
)

__all__ = [
    "PROJECT_DIR",
    "Budget",
    "Config",
    "Dirs",
    "TrustedConfig",
    "UntrustedSettings",
    "config_path",
    "dirs",
    "install_base",
    "install_hint",
    "load_config",
    "project_base",
    "project_notices",
    "revoke_project_trust",
    "root_flags",
    "trust_project_config",
    "trusted_configs",
    "update_config",
    "user_setting",
    "with_roots",
]
