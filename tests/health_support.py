"""The health line as the tests read it, and the restore both health tests end with (demo and lab host)."""

from __future__ import annotations

from mtptui.ui import messages
from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.widgets.health_line import HealthLine
from tests.ui_fixtures.support import wait_until


def health_of(app):
    return app.screen_stack[0].query_one(HealthLine).health


def line_of(app) -> str:
    return app.screen_stack[0].query_one(HealthLine).renderable.plain


async def wait_until_speed_judged(pilot, app, timeout: float) -> None:
    """Until the running profile's speed is judged against the host's bench history."""
    def judged() -> bool:
        """the speed judged against the bench history"""
        health = health_of(app)
        return health is not None and health.checks[1].state != "unknown"

    await wait_until(pilot, judged, timeout=timeout)


async def restore_until_green(pilot, app, posted: list, timeout: float) -> None:
    """`R`, `y`, the restart finished, and the restored profile judged healthy."""
    await pilot.press("R")
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=90)  # after the host lint
    await pilot.press("y")
    await wait_until(pilot, lambda: any(isinstance(m, messages.RestartFinished) for m in posted), timeout=timeout)

    def green() -> bool:
        """the restored profile judged healthy"""
        health = health_of(app)
        return health is not None and health.state == "ok"

    await wait_until(pilot, green, timeout=timeout)
