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


def search_path(config_file: str | os.PathLike[str] | None = None) -> list[Path]:
    """Host files in lookup order: --config, MTPTUI_CONFIG, XDG hosts/, the repo's configs/.

    --config and MTPTUI_CONFIG may name a file or a directory of ``*.toml``; a named file
    that does not exist stays in the list so that loading it reports the mistake.
    """
    explicit = [Path(p).expanduser() for p in (config_file, os.environ.get("MTPTUI_CONFIG")) if p]
    implicit = [config_home() / "hosts", repo_configs()]
    files: list[Path] = []
    for source in explicit:
        files.extend(_toml_files(source))
    for source in implicit:
        if source is not None and source.is_dir():
            files.extend(_toml_files(source))
    return [f for f in files if f.name != "prompts.toml"]


def shipped_config(name: str) -> Path:
    """A file of the repo's ``configs/`` (demo.toml, prompts.toml): the checkout's copy, else the wheel's."""
    repo = repo_configs()
    if repo is not None and (repo / name).is_file():
        return repo / name
    return Path(__file__).resolve().parents[1] / "configs" / name
