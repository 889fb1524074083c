"""The health line on the dashboard against the real simulated server (a tmp demo run, its background load):
red on the bad redeploy before any key is pressed, naming the flags and the slowdown against the host's bench
history; green once the known-good profile is restored; and without any history, it says so and still shows
the drift. The red test's host asks for a 12 s health window (``health_lasts_s``; the default 30 s is held in
tests/test_health.py), so the red comes sooner."""

from __future__ import annotations

import json

import pytest

from mtptui.bench.history import append_run
from mtptui.demo.run import DemoRun
from mtptui.ui.widgets.health_line import HealthLine
from mtptui.ui.widgets.serving_pane import ServingPane
from tests.health_support import health_of, line_of, restore_until_green, wait_until_speed_red
from tests.ui_fixtures.support import FIXTURES, SIZE, fixed_clock, wait_until

TIMEOUT_S = 90
LASTS_S = 12.0  # the red test's host's health window


@pytest.fixture
def recorded_history() -> None:
    """The demo host's history: three bench runs of each profile, as the bench recorded them against this server
    (the server log followed: tests/ui_fixtures/health-*-bench.json)."""
    for name in ("redeploy", "restored"):
        for run in json.loads((FIXTURES / f"health-{name}-bench.json").read_text()):
            append_run(run)


def demo_app(run: DemoRun):
    from mtptui.ops.connect import open_session
    from mtptui.cli.commands.demo import demo_dashboard
    from mtptui.ui.app import MtpApp

    return MtpApp(*demo_dashboard(run, open_session(run.host)), clock=fixed_clock, cursor_blink=False, keymap={})


def plain(renderable) -> str:
    from rich.console import Console

    console = Console(width=60, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


async def test_bad_redeploy_is_red_with_flags_and_slowdown_then_restore_turns_it_green(demo_run,
                                                                                     recorded_history) -> None:
    demo_run.host = demo_run.host.model_copy(update={"health_lasts_s": LASTS_S})
    app = demo_app(demo_run)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await wait_until_speed_red(pilot, app, TIMEOUT_S)
        line = line_of(app)
        assert health_of(app).state == "bad" and app.screen.query_one(HealthLine).has_class("-bad")
        # the drift's details, the slowdown and the incident's own call: one step configured where 3 are known-good
        assert "≠ known-good: steps 1≠3, draft 2≠4, max-running 1≠16" in line and "1 step configured!" in line
        assert "tok/s (−" in line and line.rstrip().endswith("d why · R restore")
        assert app.context.host.health_lasts_s == LASTS_S
        serving = app.live.serving
        assert serving.running and max(serving.running) == 1  # --max-running-requests 1
        await wait_until(pilot, lambda: serving.metrics_rate is not None, timeout=30)  # two /metrics scrapes
        app.screen.paint(everything=True)
        pane = plain(app.screen.query_one(ServingPane).renderable)
        assert " /metrics" in pane and "queued" in pane  # (no aborted series before a request is aborted)

        await restore_until_green(pilot, app, posted, TIMEOUT_S)
        line = line_of(app)
        assert "runs the known-good profile (restored)" in line and "vs 54 = bench, restored, c=1, 3 runs" in line
        assert app.screen.query_one(HealthLine).has_class("-ok")


async def test_without_history_it_says_so_and_still_shows_the_drift(demo_run) -> None:
    app = demo_app(demo_run)
    async with app.run_test(size=SIZE) as pilot:
        def drift_known() -> bool:
            """the running launch read and compared with the known-good profile"""
            health = health_of(app)
            return health is not None and health.checks[0].state == "bad"

        await wait_until(pilot, drift_known, timeout=TIMEOUT_S)
        line = line_of(app)
        assert "≠ known-good: steps 1≠3" in line and "no baseline" in line and "1 step configured!" in line
        assert line.rstrip().endswith("d why · R restore · b bench")
