"""Before measuring an arm: does the running process really have the arm's flags? (club-3090's A/B script asserts
the live flags before benching each arm: a restart that silently kept the old server would measure the wrong arm.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.config.models import LaunchProfile
from mtptui.ops.launches import running_side
from mtptui.sglang.flags import FlagSet, diff_flagsets

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession


async def launch_mismatch(session: HostSession, profile: LaunchProfile) -> str | None:
    """None when the server running now was launched with exactly ``profile``; else one sentence naming what
    differs (as SGLang resolves it), or that nothing runs."""
    expected = FlagSet.from_profile(profile, session.host.sglang_version)
    running = await running_side(session, set(profile.env))
    if running is None:
        return "no SGLang server runs after the restart"
    diff = diff_flagsets([("arm", expected), ("running", running.side.flagset)])
    if diff.empty:
        return None
    rows = [f"{row.flag} {row.resolved[1]} (the arm: {row.resolved[0]})" for row in diff.rows[:3]]
    rows += [f"${row.var} {row.values[1]} (the arm: {row.values[0]})" for row in diff.env[:2]]
    return f"the running server ({running.side.label}) does not have the arm's launch: " + "; ".join(rows)
