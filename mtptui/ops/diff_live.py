"""`mtptui diff HOST`: the running server vs the systemd unit (or launch command) vs a profile, side by side.

Uses the flags engineer's ``diff_flagsets``; the JSON is design.md's Diff JSON, plus ``notes`` when a side is
missing (no server running, no unit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mtptui.errors import UserError
from mtptui.ops.launches import Running, configured_side, profile_side, running_side
from mtptui.sglang.flags import Diff, diff_flagsets
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

    def to_json(self) -> dict[str, object]:
        data = self.diff.to_json()
        if self.notes:
            data["notes"] = list(self.notes)
        return data

    def render_text(self) -> str:
        text = render_diff(self.diff)
        return "\n".join([*(f"note: {note}" for note in self.notes), text]) if self.notes else text


def default_profile(host: HostConfig) -> str:
    if host.known_good:
        return host.known_good
    if len(host.profiles) == 1:
        return next(iter(host.profiles))
    raise UserError(f"host {host.name!r} has no known_good profile; name one with --profile NAME")


async def live_diff(session: HostSession, profile_name: str | None = None) -> LiveDiff:
    """Read the three sides on the host and compare them (running, unit or command, profile)."""
    host = session.host
    name = profile_name or default_profile(host)
    profile, profile_s = profile_side(host, name)
    configured, _ = await configured_side(session)
    env_names = set(profile.env) | (set(configured.flagset.env) if configured else set())
    running = await running_side(session, env_names)
    notes: list[str] = []
    if running is None:
        notes.append(f"no SGLang server is running on {host.name}")
    if configured is None:
        notes.append(f"{host.name} has no launch_command to compare")
    sides = [s for s in (running.side if running else None, configured, profile_s) if s is not None]
    if len(sides) < 2:
        raise UserError(f"nothing to compare on {host.name}: no SGLang server is running and the host has no "
                        f"unit or launch command")
    diff = diff_flagsets([(side.label, side.flagset) for side in sides])
    return LiveDiff(diff, running, notes)
