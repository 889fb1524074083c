"""`mtptui diff HOST`: the running server vs the systemd unit (or launch command) vs a profile, side by side.

The host's engine reads and compares the sides (its ``Launches`` in mtptui.engines.registry); the JSON is
design.md's Diff JSON with the ``engine``, plus ``notes`` when a side is missing (no server running, no unit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mtptui.engines.registry import engine
from mtptui.errors import UserError
from mtptui.ops import diff_sides
from mtptui.ops.adaptive_config import AdaptiveFile
from mtptui.ops.launches import Running
from mtptui.engines.sglang.flags import Diff
from mtptui.engines.sglang.flags.diff_text import render_diff

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.ops.connect import HostSession
    from mtptui.ops.diff_sides import DiffSides


@dataclass
class LiveDiff:
    """The diff and what it was made of."""

    diff: Diff
    running: Running | None
    notes: list[str] = field(default_factory=list)
    adaptive: list[AdaptiveFile] = field(default_factory=list)  # the sides' adaptive speculation config files
    engine: str = "sglang"  # the host's engine, which read and compared the sides
    sides: DiffSides | None = None  # what was read (mtptui.ops.diff_sides.gather_sides)

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
    """Read the three sides on the host (mtptui.ops.diff_sides.gather_sides) and compare them."""
    host = session.host
    gathered = await diff_sides.gather_sides(host, profile_name or default_profile(host), session=session)
    sides = gathered.sides
    if len(sides) < 2:
        label = engine(host.engine).label
        raise UserError(f"nothing to compare on {host.name}: no {label} server is running and the host has no "
                        f"unit or launch command")
    diff = diff_sides.compare(sides, False, host.engine)
    return LiveDiff(diff, gathered.live, gathered.notes("launch_command"), gathered.adaptive, host.engine, gathered)
