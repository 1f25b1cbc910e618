"""Configuration files, where skilldeck keeps things, and trust in a project's configuration.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._errors import (
        hint_command as hint_command,
        root_flags as root_flags,
        with_roots as with_roots,
    )
    from skilldeck._extras import install_hint as install_hint
    from skilldeck._paths import (
        PROJECT_DIR as PROJECT_DIR,
        Dirs as Dirs,
        dirs as dirs,
        install_base as install_base,
        user_setting as user_setting,
    )
    from skilldeck.config._budget import Budget as Budget
    from skilldeck.config._config import (
        Config as Config,
        config_path as config_path,
        load_config as load_config,
        project_base as project_base,
        project_config as project_config,
        project_notices as project_notices,
        revoke_project_trust as revoke_project_trust,
        trust_project_config as trust_project_config,
        update_config as update_config,
    )
    from skilldeck.config._runtime import TOOL_KEYS as TOOL_KEYS, check_runtime as check_runtime
    from skilldeck.config._trust import (
        TrustedConfig as TrustedConfig,
        UntrustedSettings as UntrustedSettings,
        trusted_configs as trusted_configs,
    )
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "Budget": "._budget",
        "Config": "._config",
        "config_path": "._config",
        "load_config": "._config",
        "project_base": "._config",
        "project_notices": "._config",
        "revoke_project_trust": "._config",
        "trust_project_config": "._config",
        "update_config": "._config",
        "TrustedConfig": "._trust",
        "UntrustedSettings": "._trust",
        "trusted_configs": "._trust",
        "hint_command": "skilldeck._errors",
        "root_flags": "skilldeck._errors",
        "with_roots": "skilldeck._errors",
        "install_hint": "skilldeck._extras",
        "Dirs": "skilldeck._paths",
        "PROJECT_DIR": "skilldeck._paths",
        "dirs": "skilldeck._paths",
        "install_base": "skilldeck._paths",
        "user_setting": "skilldeck._paths",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "TOOL_KEYS": "._runtime",
        "check_runtime": "._runtime",
        "project_config": "._config",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
