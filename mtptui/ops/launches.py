"""The launch configurations of a host, as flag sets: what runs, what the unit (or command) says, a profile.

Each side comes with its diff label (design.md's Diff JSON): ``running:pid 1234``, ``unit:/etc/...``,
``command:server.launch_command``, ``profile:restored``. Each is read by the host's engine (its ``Launches`` in
mtptui.engines.registry): a side's ``flagset`` is that engine's flag set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from mtptui.config.models import HostConfig, LaunchProfile
from mtptui.engines.registry import Launches, launches
from mtptui.errors import UserError
from mtptui.remote.logsource import JournalLog
from mtptui.remote.procinfo import ProcessInfo
from mtptui.remote.shell import PIPE, Command, Op
from mtptui.remote.unitfile import ConfiguredLaunch, UnitFile
from mtptui.engines.sglang.flags import FlagError, FlagSet

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession


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


def flagset_from_argv(argv: list[str], version: str, model: Launches | None = None) -> FlagSet:
    """The flag set of a process's argv (read by ``model``, default SGLang's); a ``sh -c "..."`` wrapper is read
    as the command line it runs."""
    flagset: FlagSet = (model or launches(None)).argv(argv, version)
    return flagset


def profile_side(host: HostConfig, name: str) -> tuple[LaunchProfile, Side]:
    profile, model = host.own_profile(name), launches(host.engine)
    label = f"profile:{name}"
    return profile, Side(label, _labelled(label, lambda: model.profile(profile, model.version(host))))


def _labelled(label: str, build: Callable[[], FlagSet]) -> FlagSet:
    try:
        return build()
    except FlagError as exc:
        raise FlagError(f"{label}: {exc}", flag=exc.flag, fix=exc.fix) from None
    except UserError as exc:  # another engine's refusal, in one sentence
        raise UserError(f"{label}: {exc}") from None


async def running_side(session: HostSession, env_names: set[str]) -> Running | None:
    """The live server as a side, or None when none runs; ``env_names`` are variables always compared."""
    host = session.host
    info, model = await session.manager.server_process(), launches(host.engine)
    if info is None:
        return None
    label = f"running:pid {info.pid}"
    flagset = _labelled(label, lambda: flagset_from_argv(info.argv, model.version(host), model))
    flagset.env = info.server_env(frozenset(env_names) | set(flagset.env), model.env_prefixes)
    return Running(info, Side(label, flagset))


async def with_server_word(session: HostSession, running: Running | None) -> Running | None:
    """The running side with what its server logged it resolved, where its engine logs that (vLLM's
    `non-default args`): the last such line of the log, read since the process started when the log is a
    journal. Unchanged when the engine logs no such line or the log has none."""
    said = launches(session.host.engine).resolved
    if running is None or said is None:
        return running
    result = await session.transport.run(_last_line_command(session, said.marker, running.info.started_at))
    line = result.out.strip().splitlines()[-1:] if result.ok else []
    if line:
        running.side.flagset = said.apply(running.side.flagset, line[0])
    return running


def _last_line_command(session: HostSession, marker: str, started_at: float | None) -> Command:
    """The last line of the host's log holding ``marker`` (a fixed string)."""
    source = session.log_source
    if isinstance(source, JournalLog):
        since = ["--since", f"@{int(started_at) - 2}"] if started_at else []
        reader: list[str | Op] = [*source.journalctl("-o", "cat", *since)]
    else:
        reader = ["cat", "--", getattr(source, "path", "/dev/null")]
    return Command.of([*reader, PIPE, "grep", "-a", "-F", "--", marker, PIPE, "tail", "-n", "1"],
                      f"read what the server said it resolved ({marker.strip()})")


def unit_side(unit_file: UnitFile, label: str, version: str, model: Launches | None = None) -> Side:
    """The launch a unit runs: its ExecStart= (with drop-ins), its Environment= and EnvironmentFile=s."""
    reader = model or launches(None)

    def build() -> FlagSet:
        unit = unit_file.parsed()
        flagset: FlagSet = reader.unit(unit, version)
        launched = {k: v for k, v in flagset.env.items() if unit.environment.get(k) != v}  # ExecStart=env X=1 ...
        flagset.env = {**unit_file.environment(), **launched}
        return flagset

    return Side(label, _labelled(label, build))


def reference_side(unit_file: UnitFile, version: str, model: Launches | None = None) -> Side:
    """The unit a hand-started server replaced (``server.unit_file``), named after its file."""
    return unit_side(unit_file, f"unit:{unit_file.path}", version, model)


def launch_side(launch: ConfiguredLaunch, version: str, model: Launches | None = None) -> Side:
    """What a host is configured to start, as a side: its unit, or its launch command."""
    reader = model or launches(None)
    if launch.unit is not None:
        return unit_side(launch.unit, launch.label, version, reader)
    command = launch.command or ""
    return Side(launch.label, _labelled(launch.label, lambda: reader.command(command, version)))


async def configured_side(session: HostSession) -> tuple[Side | None, ConfiguredLaunch | None]:
    """What the host is configured to start (the manager says: a unit, a launch command, the unit a hand-started
    server replaced), as a side and as the manager read it; (None, None) when nothing is configured."""
    launch, model = await session.manager.configured(), launches(session.host.engine)
    return (launch_side(launch, model.version(session.host), model), launch) if launch else (None, None)
