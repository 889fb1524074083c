"""`mtptui diff HOST`: the running server vs the systemd unit (or launch command) vs a profile, side by side.

The host's engine reads and compares the sides (its ``Launches`` in mtptui.engines.registry); the JSON is
design.md's Diff JSON with the ``engine``, plus ``notes`` when a side is missing (no server running, no unit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mtptui.engines.registry import engine, launches
from mtptui.errors import UserError
from mtptui.ops.adaptive_config import AdaptiveFile, adaptive_files, session_reader
from mtptui.ops.launches import Running, configured_side, profile_side, running_side, with_server_word
from mtptui.sglang.flags import Diff
from mtptui.sglang.flags.diff_text import render_diff

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.ops.connect import HostSession


@dataclass
class LiveDiff:
    """The diff and what it was made of."""

    diff: Diff
    running: Running | None
    notes: list[str] = field(default_factory=list)
    adaptive: list[AdaptiveFile] = field(default_factory=list)  # the sides' adaptive speculation config files
    engine: str = "sglang"  # the host's engine, which read and compared the sides

    def to_json(self) -> dict[str, object]:
        data = {"engine": self.engine, **self.diff.to_json()}
        if self.notes:
            data["notes"] = list(self.notes)
        if self.adaptive:
            data["adaptive_config"] = [item.to_json() for item in self.adaptive]
        return data

    def render_text(self) -> str:
        text = render_diff(self.diff)
        if self.adaptive:
            text += "\n" + "\n".join(f"adaptive config of {item.line()}" for item in self.adaptive)
        return "\n".join([*(f"note: {note}" for note in self.notes), text]) if self.notes else text


def default_profile(host: HostConfig) -> str:
    """HostConfig.default_profile, or the sentence a command gives when it is a choice to make."""
    name = host.default_profile()
    if name is None:
        raise UserError(f"host {host.name!r} has no known_good profile; name one with --profile NAME")
    return name


async def live_diff(session: HostSession, profile_name: str | None = None) -> LiveDiff:
    """Read the three sides on the host and compare them (running, unit or command, profile)."""
    host = session.host
    name = profile_name or default_profile(host)
    profile, profile_s = profile_side(host, name)
    configured, _ = await configured_side(session)
    env_names = set(profile.env) | (set(configured.flagset.env) if configured else set())
    running = await with_server_word(session, await running_side(session, env_names))
    label = engine(host.engine).label
    notes: list[str] = []
    if running is None:
        notes.append(f"no {label} server is running on {host.name}")
    if configured is None:
        notes.append(f"{host.name} has no launch_command to compare")
    sides = [s for s in (running.side if running else None, configured, profile_s) if s is not None]
    if len(sides) < 2:
        raise UserError(f"nothing to compare on {host.name}: no {label} server is running and the host has no "
                        f"unit or launch command")
    diff = launches(host.engine).diff([(side.label, side.flagset) for side in sides], False)
    return LiveDiff(diff, running, notes, await adaptive_files(sides, session_reader(session)), host.engine)
