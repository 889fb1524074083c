"""Load a launch configuration to compare: a unit file, a TOML profile, a command-line file, or HOST:PROFILE.

``--left``/``--right`` of `mtptui diff` go through ``load_source``; every failure is one sentence. This module
reads the files and the host config; what the bytes say is SGLang's knowledge (mtptui.engines.sglang.flags.command:
an argv or a command line; mtptui.engines.sglang.unit: a unit's ExecStart=; ``FlagSet.from_profile``: a launch profile).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Callable

from pydantic import ValidationError

from mtptui.config.files import INPUT_FILE_LIMIT, read_bounded
from mtptui.config.loader import find_host, parse_host
from mtptui.config.models import LaunchProfile
from mtptui.errors import ConfigError, UserError
from mtptui.engines.sglang.flags.command import parse_cmdline, parse_command
from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.flags.table import DEFAULT_VERSION
from mtptui.engines.sglang.unit import read_unit, unit_flagset


def load_source(spec: str, version: str | None = None, config_file: str | None = None) -> tuple[str, FlagSet]:
    """(label, flag set) for a file path, ``FILE.toml:PROFILE`` or ``HOST:PROFILE`` (e.g. ``ct129:restored``).

    ``version`` applies to every source when given; otherwise a host's own SGLang version is used, and
    DEFAULT_VERSION for files.
    """
    path = Path(spec).expanduser()
    if path.exists():
        return _from_file(path, None, version)
    head, sep, profile = spec.rpartition(":")
    if sep and head and Path(head).expanduser().exists() and not Path(head).expanduser().is_dir():
        return _from_file(Path(head).expanduser(), profile, version)
    if sep and head and profile and "/" not in head:
        return _from_host(head, profile, version, config_file)
    raise UserError(f"{spec}: no such file (or give HOST:PROFILE, e.g. ct129:restored)")


def _from_host(host_name: str, profile_name: str, version: str | None,
               config_file: str | None) -> tuple[str, FlagSet]:
    _, host = find_host(host_name, config_file)
    profile = host.own_profile(profile_name)
    label = f"profile:{host_name}:{profile_name}"
    return label, _labelled(label, lambda: FlagSet.from_profile(profile, version or host.sglang_version))


def _labelled(label: str, build: Callable[[], FlagSet]) -> FlagSet:
    try:
        return build()
    except FlagError as exc:
        raise FlagError(f"{label}: {exc}", flag=exc.flag, fix=exc.fix) from None


def _read(path: Path) -> bytes:
    return read_bounded(path, "file to compare", INPUT_FILE_LIMIT, UserError)


def _from_file(path: Path, profile: str | None, version: str | None) -> tuple[str, FlagSet]:
    data = _read(path)
    if b"\0" in data:  # /proc/PID/cmdline: NUL-separated argv
        label = f"command:{path}"
        return label, _labelled(label, lambda: parse_cmdline(data, version or DEFAULT_VERSION, require_model=False))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a text file") from None
    if path.suffix == ".toml" or profile is not None:
        return _from_toml(path, text, profile, version)
    if path.suffix == ".service" or "[Service]" in text:
        return _from_unit(path, text, version)
    label = f"command:{path}"
    return label, _labelled(label, lambda: parse_command(text, version or DEFAULT_VERSION, require_model=False))


def _from_unit(path: Path, text: str, version: str | None) -> tuple[str, FlagSet]:
    label = f"unit:{path}"
    return label, _labelled(label, lambda: unit_flagset(read_unit(text, name=path.name), version))


def _from_toml(path: Path, text: str, profile: str | None, version: str | None) -> tuple[str, FlagSet]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if "model_path" in data:
        try:
            launch = LaunchProfile.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(f"{path}: not a launch profile: {exc.errors()[0]['msg']}") from None
        label = f"profile:{path}"
        return label, _labelled(label, lambda: FlagSet.from_profile(launch, version or DEFAULT_VERSION))
    host = parse_host(text, str(path))
    name = profile or host.default_profile()
    if name is None:
        raise ConfigError(f"{path}: name the profile to compare, e.g. {path}:{next(iter(host.profiles), 'NAME')}")
    launch = host.profile(name)
    label = f"profile:{path}:{name}"
    return label, _labelled(label, lambda: FlagSet.from_profile(launch, version or host.sglang_version))
