"""Where host files are looked for, in order, and where results are kept."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "mtptui"


def config_home() -> Path:
    """``$XDG_CONFIG_HOME/mtptui`` (platformdirs honours XDG_CONFIG_HOME)."""
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def data_home() -> Path:
    """``$XDG_DATA_HOME/mtptui``: benchmark history and backups of what mtptui changed."""
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def state_home() -> Path:
    """``$XDG_STATE_HOME/mtptui``: what a session leaves behind that is worth keeping a while (saved restart plans,
    the demo's runs), neither configuration nor data."""
    return Path(platformdirs.user_state_dir(APP, appauthor=False))


def repo_configs() -> Path | None:
    """The checkout's ``configs/`` when mtptui runs from a source tree, else None."""
    root = Path(__file__).resolve().parents[2]
    configs = root / "configs"
    if (root / "pyproject.toml").is_file() and configs.is_dir():
        return configs
    return None


def _toml_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.glob("*.toml") if p.is_file())
    return [path]


def search_groups(config_file: str | os.PathLike[str] | None = None) -> list[list[Path]]:
    """Host files in lookup order, one list per place searched: --config, MTPTUI_CONFIG, XDG hosts/, configs/.

    --config and MTPTUI_CONFIG may name a file or a directory of ``*.toml``; a named file
    that does not exist stays in the list so that loading it reports the mistake.
    """
    explicit = [Path(p).expanduser() for p in (config_file, os.environ.get("MTPTUI_CONFIG")) if p]
    implicit = [source for source in (config_home() / "hosts", repo_configs())
                if source is not None and source.is_dir()]
    groups = [[f for f in _toml_files(source) if f.name != "prompts.toml"] for source in explicit + implicit]
    return [group for group in groups if group]


def named_files(config_file: str | os.PathLike[str] | None = None) -> set[Path]:
    """The host files the user named (--config or MTPTUI_CONFIG naming a file, not a directory)."""
    explicit = [Path(p).expanduser() for p in (config_file, os.environ.get("MTPTUI_CONFIG")) if p]
    return {path for path in explicit if not path.is_dir()}


def search_path(config_file: str | os.PathLike[str] | None = None) -> list[Path]:
    """Every host file of ``search_groups``, in lookup order."""
    return [path for group in search_groups(config_file) for path in group]


def shipped_config(name: str) -> Path:
    """A file of the repo's ``configs/`` (demo.toml, prompts.toml): the checkout's copy, else the wheel's."""
    repo = repo_configs()
    if repo is not None and (repo / name).is_file():
        return repo / name
    return Path(__file__).resolve().parents[1] / "configs" / name
