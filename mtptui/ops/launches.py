"""The launch configurations of a host, as flag sets: what runs, what the unit (or command) says, a profile.

Each side comes with its diff label (design.md's Diff JSON): ``running:pid 1234``, ``unit:/etc/...``,
``command:server.launch_command``, ``profile:restored``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from mtptui.config.models import HostConfig, LaunchProfile, ProcessServer, SystemdServer
from mtptui.remote.procinfo import ProcessInfo
from mtptui.remote.process import ProcessManager
from mtptui.remote.unitfile import UnitFile
from mtptui.sglang.flags import FlagError, FlagSet, parse_command
from mtptui.sglang.flags.command import parse_launch_argv

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.remote.systemd import SystemdManager


@dataclass
class Side:
    """One labelled launch configuration."""

    label: str
    flagset: FlagSet


@dataclass
class Running:
    """The live server: its process and the flag set its command line and environment give."""

    info: ProcessInfo
    side: Side


def flagset_from_argv(argv: list[str], version: str) -> FlagSet:
    """The flag set of a process's argv; a ``sh -c "..."`` wrapper is read as the command line it runs."""
    return parse_launch_argv(argv, version, require_model=False)


def profile_side(host: HostConfig, name: str) -> tuple[LaunchProfile, Side]:
    profile = host.profile(name)
    label = f"profile:{name}"
    return profile, Side(label, _labelled(label, lambda: FlagSet.from_profile(profile, host.sglang_version)))


def _labelled(label: str, build: Callable[[], FlagSet]) -> FlagSet:
    try:
        return build()
    except FlagError as exc:
        raise FlagError(f"{label}: {exc}", flag=exc.flag, fix=exc.fix) from None


async def running_side(session: HostSession, env_names: set[str]) -> Running | None:
    """The live server as a side, or None when none runs; ``env_names`` are variables always compared."""
    info, version = await session.manager.server_process(), session.host.sglang_version
    if info is None:
        return None
    label = f"running:pid {info.pid}"
    flagset = _labelled(label, lambda: flagset_from_argv(info.argv, version))
    flagset.env = info.server_env(frozenset(env_names) | set(flagset.env))
    return Running(info, Side(label, flagset))


def unit_side(unit_file: UnitFile, unit_name: str, version: str) -> Side:
    from mtptui.sglang.unit import read_unit, unit_flagset

    label = f"unit:{unit_file.path}"
    return Side(label, _labelled(label, lambda: unit_flagset(read_unit(unit_file.effective, name=unit_name), version)))


def reference_side(unit_file: UnitFile, version: str) -> Side:
    """The unit a hand-started server replaced (``server.unit_file``), named after its file."""
    return unit_side(unit_file, posixpath.basename(unit_file.path), version)


async def systemd_side(manager: SystemdManager, version: str) -> tuple[Side, UnitFile]:
    """The systemd unit the host is configured to start, and its file."""
    unit_file = await manager.read()
    return unit_side(unit_file, manager.unit, version), unit_file


async def configured_side(session: HostSession) -> tuple[Side | None, UnitFile | None]:
    """What the host is configured to start: the systemd unit, or the process server's launch_command."""
    server, version, manager = session.host.server, session.host.sglang_version, session.manager
    if isinstance(server, SystemdServer):
        assert not isinstance(manager, ProcessManager)  # open_session pairs a systemd server with its manager
        return await systemd_side(manager, version)
    assert isinstance(server, ProcessServer) and isinstance(manager, ProcessManager)
    if not server.launch_command:
        reference = await manager.reference_unit()
        return (reference_side(reference, version) if reference else None), None
    label = "command:server.launch_command"
    command = server.launch_command
    return Side(label, _labelled(label, lambda: parse_command(command, version, require_model=False))), None
