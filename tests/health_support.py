"""The health line as the tests read it, and the restore both health tests end with (demo and lab host)."""

from __future__ import annotations

from mtptui.ui import messages
from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.widgets.health_line import HealthLine
from tests.ui_fixtures.support import wait_handled, wait_until


def health_of(app):
    return app.screen_stack[0].query_one(HealthLine).health


def line_of(app) -> str:
    return app.screen_stack[0].query_one(HealthLine).renderable.plain


async def wait_until_speed_red(pilot, app, timeout: float) -> None:
    """Until the slowdown against the host's bench history has lasted long enough to be red (LASTS_S of log
    time after it first fell below)."""
    def red() -> bool:
        """the speed judged below the baseline, for good"""
        health = health_of(app)
        return health is not None and health.checks[1].name == "speed" and health.checks[1].state == "bad"

    await wait_handled(red, timeout=timeout)


async def restore_until_green(pilot, app, posted: list, timeout: float) -> None:
    """`R`, `y`, the restart finished, and the restored profile judged healthy."""
    await pilot.press("R")
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=90)  # after the host lint
    await pilot.press("y")
    lines: list[str] = []

    def finished() -> bool:
        """the restart finished (every health line painted meanwhile kept)"""
        lines.append(line_of(app))
        return any(isinstance(m, messages.RestartFinished) for m in posted)

    await wait_handled(finished, timeout=timeout)
    during = lines[next((i for i, line in enumerate(lines) if "restarting to" in line), len(lines)):]
    assert during and all("tok/s" not in line for line in during[:-1]), during  # no figure of the old process

    def green() -> bool:
        """the restored profile judged healthy"""
        health = health_of(app)
        return health is not None and health.state == "ok"

    await wait_handled(green, timeout=timeout)
