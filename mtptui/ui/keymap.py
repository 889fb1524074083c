"""User key remapping: ``$XDG_CONFIG_HOME/mtptui/keys.toml`` maps binding ids to keys.

    [keys]
    diff = "D"
    "log.find" = "ctrl+f"
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from mtptui.config.paths import config_home
from mtptui.errors import ConfigError


def keymap_path() -> Path:
    return config_home() / "keys.toml"


def load_keymap(path: Path | None = None) -> dict[str, str]:
    """Binding id → key(s); an absent file is an empty keymap, a broken one a ConfigError."""
    path = path or keymap_path()
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read key bindings: {exc}") from None
    keys = data.get("keys", {})
    if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
        raise ConfigError(f'{path}: expected a [keys] table of id = "key" strings')
    return dict(keys)
