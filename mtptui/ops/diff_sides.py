"""The sides of a host's diff (`mtptui diff HOST` and the diff screen): running, unit (or launch command),
profile, read in one place (gather_sides); and every flag for "show all".

With a host session the running side is the live process and the configured side what its manager reads
(mtptui.ops.launches); without one (recorded feeds) the running side is the launch the host status reports,
and a local host's ``server.unit_file`` is read from this machine's disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mtptui.config.models import HostConfig, ProcessServer
from mtptui.engines.registry import engine, launches
from mtptui.ops.adaptive_config import AdaptiveFile, adaptive_files, reader_of
from mtptui.ops.host_files import file_reader, with_launch_files
from mtptui.ops.launches import (Running, Side, configured_side, profile_side, reference_side, running_side,
                                 with_server_word)
from mtptui.remote.unitfile import UnitFile
from mtptui.engines.sglang.flags import Diff, DiffRow

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ops.feed.items import HostStatus


@dataclass(frozen=True)
class DiffSides:
    """The three sides of a host's diff, read once for `mtptui diff HOST` (mtptui.ops.diff_live) and the diff
    screen: the running process (None when no server runs; ``live`` is its process, with a session), the unit or
    launch command (None when the host has none) and the profile, with the adaptive config files they name."""

    host: HostConfig
    running: Side | None
    configured: Side | None
    profile: Side
    live: Running | None = None
    adaptive: list[AdaptiveFile] = field(default_factory=list)

    @property
    def sides(self) -> list[Side]:
        """The sides there are, in running, configured, profile order."""
        return [side for side in (self.running, self.configured, self.profile) if side is not None]

    def notes(self, no_configured: str = "unit or launch command") -> list[str]:
        """A sentence for each missing side (``no_configured``: the words for a missing unit or command)."""
        notes: list[str] = []
        if self.running is None:
            notes.append(f"no {engine(self.host.engine).label} server is running on {self.host.name}")
        if self.configured is None:
            notes.append(f"{self.host.name} has no {no_configured} to compare")
        return notes


async def gather_sides(host: HostConfig, profile: str, *, session: HostSession | None = None,
                       status: HostStatus | None = None) -> DiffSides:
    """Read the sides. With a session the running side is the live process and the configured side what the
    host's manager reads; without one the running side is the launch ``status`` reports and the configured side a
    local host's unit file on this machine's disk. The files a side's launch reads at start (vLLM's `--config`)
    are read on the host, through the session (mtptui.ops.host_files); without one only a local host's are read
    (here), and a remote host's sides keep the path alone."""
    _, profile_s = profile_side(host, profile)
    configured = (await configured_side(session))[0] if session is not None else local_reference_side(host)
    running: Side | None = None
    live: Running | None = None
    if session is not None:
        env_names = set(profile_s.flagset.env) | (set(configured.flagset.env) if configured else set())
        live = await with_server_word(session, await running_side(session, env_names))
        running = live.side if live else None
    elif status is not None and status.launch is not None:
        running = Side(f"running:{status.launch_source or 'status'}", status.launch)
    found = [side for side in (running, configured, profile_s) if side is not None]
    model = launches(host.engine)
    if session is not None or host.ssh is None:  # never this machine's file for a remote host's launch
        read = file_reader(session)
        for side in found:
            await with_launch_files(side, model, read)
    return DiffSides(host, running, configured, profile_s, live, await adaptive_files(found, reader_of(session)))


def local_reference_side(host: HostConfig) -> Side | None:
    """Without a session: the unit file a hand-started local server replaced, read from this machine's disk."""
    server = host.server
    if host.ssh is not None or not isinstance(server, ProcessServer) or not server.unit_file:
        return None
    try:
        text = Path(server.unit_file).read_text(encoding="utf-8")
    except OSError:
        return None
    model = launches(host.engine)
    return reference_side(UnitFile(server.unit_file, text, text, name=Path(server.unit_file).name),
                          model.version(host), model)


def compare(sides: list[Side], show_all: bool, engine_name: str | None = None) -> Diff:
    """The diff of the sides (read by the engine called ``engine_name``, default SGLang); with ``show_all`` every
    flag any side writes or resolves, differing or not."""
    pairs = [(side.label, side.flagset) for side in sides]
    if len(pairs) == 1:
        nothing = type(sides[0].flagset)(version=sides[0].flagset.version)  # the engine's empty launch
        pairs.append(("(nothing)", nothing))
    diff: Diff = launches(engine_name).diff(pairs, show_all)
    return diff


def differs(row: DiffRow) -> bool:
    return len(set(row.values)) > 1 or len(set(row.resolved)) > 1
