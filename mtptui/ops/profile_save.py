"""Save a launch profile (or the known-good mark) into a host file, and choose which file that is.

A host read from the repo's ``configs/`` (an example) is not the user's to overwrite: its profiles go to
``$XDG_CONFIG_HOME/mtptui/hosts/NAME.toml``, a copy the user owns, which the host lookup finds first from then on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mtptui.config import HostConfig, LaunchProfile, save_host
from mtptui.config.paths import config_home, repo_configs


@dataclass(frozen=True)
class Saved:
    """A saved profile: the host with it, the file written, and what the user should know besides."""

    host: HostConfig
    path: Path
    note: str = ""


class ProfileStore(Protocol):
    """Where the dashboard saves the profiles made in its flags form or found by a tune."""

    def save(self, host: HostConfig, name: str, profile: LaunchProfile, *, known_good: bool = False) -> Saved: ...


@dataclass(frozen=True)
class HostFileStore:
    """The host file the host was read from (``source``), or the user's copy of an example (see save_path)."""

    source: Path | None

    def save(self, host: HostConfig, name: str, profile: LaunchProfile, *, known_good: bool = False) -> Saved:
        path = save_path(host, self.source)
        return Saved(save_profile(host, name, profile, path, known_good=known_good), path)


def save_path(host: HostConfig, source: Path | None) -> Path:
    """Where ``host``'s profiles are saved: its own file, or the user's copy for examples."""
    configs = repo_configs()
    if source is None or (configs is not None and source.resolve().parent == configs.resolve()):  # an example
        return config_home() / "hosts" / f"{host.name}.toml"
    return source


def with_profile(host: HostConfig, name: str, profile: LaunchProfile, *, known_good: bool = False) -> HostConfig:
    """The host with ``profile`` saved as ``name`` (and marked known-good when asked)."""
    data = host.model_dump(mode="json", exclude_unset=True)
    data.setdefault("profiles", {})[name] = profile.model_dump(mode="json", exclude_unset=True)
    if known_good:
        data["known_good"] = name
    return HostConfig.model_validate(data)


def save_profile(host: HostConfig, name: str, profile: LaunchProfile, path: Path, *,
                 known_good: bool = False) -> HostConfig:
    """Write the host with the profile to ``path`` (atomically, the old file kept as .bak); the new host."""
    updated = with_profile(host, name, profile, known_good=known_good)
    save_host(updated, path)
    return updated
