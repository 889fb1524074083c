"""Profiles saved in the demo: kept in ``$XDG_CONFIG_HOME/mtptui/hosts/demo.toml`` and offered by the next demo.

A demo run localizes the shipped demo host (its own port, log and pid paths in a temporary directory, profiles
launched by this Python). None of that is saved: the file holds the shipped host's fields and every profile
with the shipped port and no interpreter, so it is the same whichever run wrote it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from mtptui.config import HostConfig, LaunchProfile, load_host_file
from mtptui.config.paths import config_home
from mtptui.ops.profile_save import Saved, save_profile, with_profile


def saved_demo_path(name: str = "demo") -> Path:
    """Where the demo host ``name`` (demo, demo-vllm) keeps the profiles saved in its runs."""
    return config_home() / "hosts" / f"{name}.toml"


def with_saved_profiles(template: HostConfig, path: Path | None = None) -> HostConfig:
    """The shipped demo host plus the profiles (and known-good mark) saved from earlier demos, if any."""
    path = path or saved_demo_path(template.name)
    if not path.is_file():
        return template
    saved = load_host_file(path)  # a broken file is a ConfigError naming it
    data = template.model_dump(mode="json", exclude_unset=True)
    profiles = data.setdefault("profiles", {})
    profiles.update({name: p.model_dump(mode="json", exclude_unset=True) for name, p in saved.profiles.items()})
    if saved.known_good in profiles:
        data["known_good"] = saved.known_good
    return HostConfig.model_validate(data)


def portable_profile(profile: LaunchProfile, port: int) -> LaunchProfile:
    """The profile without a run's details: the shipped port, and the default interpreter (a run sets its own)."""
    data = profile.model_dump(mode="json", exclude_unset=True)
    data.pop("python", None)
    if "port" in data.get("flags", {}):
        data["flags"]["port"] = port
    return LaunchProfile.model_validate(data)


def portable_host(template: HostConfig, host: HostConfig) -> HostConfig:
    """``template``'s fields with ``host``'s profiles made portable."""
    port = urlsplit(template.api_url).port or 0
    data = template.model_dump(mode="json", exclude_unset=True)
    data["profiles"] = {name: portable_profile(p, port).model_dump(mode="json", exclude_unset=True)
                        for name, p in host.profiles.items()}
    data["known_good"] = host.known_good
    return HostConfig.model_validate(data)


def save_demo_profile(template: HostConfig, name: str, profile: LaunchProfile, *, known_good: bool = False,
                      path: Path | None = None) -> Path:
    """Add a profile saved in a demo run to the user's demo file (portable); the path written."""
    path = path or saved_demo_path(template.name)
    base = portable_host(template, with_saved_profiles(template, path))
    port = urlsplit(template.api_url).port or 0
    save_profile(base, name, portable_profile(profile, port), path, known_good=known_good)
    return path


class DemoProfileStore:
    """The flags form's and the tune's store in a demo: the user's demo file, offered by the next demo."""

    def __init__(self, template_path: Path) -> None:
        self.template_path = template_path

    def save(self, host: HostConfig, name: str, profile: LaunchProfile, *, known_good: bool = False) -> Saved:
        path = save_demo_profile(load_host_file(self.template_path), name, profile, known_good=known_good)
        return Saved(with_profile(host, name, profile, known_good=known_good), path,
                     "the next `mtptui demo` offers it")
