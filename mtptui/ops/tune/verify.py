"""Before measuring an arm: does the running process really have the arm's flags? (club-3090's A/B script asserts
the live flags before benching each arm: a restart that silently kept the old server would measure the wrong arm.)
The session's engine reads both launches and compares them (its ``Launches``), whichever engine the arm runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.config.models import LaunchProfile
from mtptui.engines.registry import engine, launches
from mtptui.ops.launches import running_side

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession


async def launch_mismatch(session: HostSession, profile: LaunchProfile) -> str | None:
    """None when the server running now was launched with exactly ``profile``; else one sentence naming what
    differs (as the engine resolves it), or that nothing runs."""
    model = launches(session.host.engine)
    expected = model.profile(profile, model.version(session.host))
    running = await running_side(session, set(profile.env))
    if running is None:
        return f"no {engine(session.host.engine).label} server runs after the restart"
    diff = model.diff([("arm", expected), ("running", running.side.flagset)], False)
    if diff.empty:
        return None
    rows = [f"{row.flag} {row.resolved[1]} (the arm: {row.resolved[0]})" for row in diff.rows[:3]]
    rows += [f"${row.var} {row.values[1]} (the arm: {row.values[0]})" for row in diff.env[:2]]
    return f"the running server ({running.side.label}) does not have the arm's launch: " + "; ".join(rows)
