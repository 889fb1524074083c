"""Configured vs live speculation on the dashboard: adaptive speculation that shifted down on a low-acceptance load
(the simulated 0.5.12.post1's recorded log and /server_info) reads "3 configured · 1 live" and the health line
does not call it the incident; the incident itself (one step configured) is called a misconfigured launch."""

from __future__ import annotations

import json

from mtptui.engines.sglang.flags import FlagSet
from mtptui.engines.sglang.live import live_from_server_info
from mtptui.ui.widgets.speculation_pane import SpeculationPane
from mtptui.ui.widgets.throughput_pane import ThroughputPane
from tests.health_support import health_of, line_of
from tests.speculation_support import ADAPTIVE_LOG, adaptive_host
from tests.ui_fixtures.support import FIXTURES, SIZE, demo_status, make_app, settle


def adaptive_app():
    host = adaptive_host()
    info = json.loads((FIXTURES / ADAPTIVE_LOG).with_suffix(".json").read_text())
    status = demo_status(launch=FlagSet.from_profile(host.profile("adaptive"), host.sglang_version),
                         launch_source="running pid 4242", speculation=live_from_server_info(info))
    return make_app(FIXTURES / ADAPTIVE_LOG, status=status, host=host)[0]


def pane_text(app) -> str:
    from rich.console import Console

    console = Console(width=60, record=True, file=open("/dev/null", "w"))
    console.print(app.screen.query_one("#spec-settings").renderable)
    console.print(app.screen.query_one("#live-steps-label").renderable)
    return console.export_text()


async def test_an_adaptive_downshift_shows_configured_and_live_and_is_not_the_incident() -> None:
    app = adaptive_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        text = pane_text(app)
        assert "steps        3 configured · 1 live (adaptive: 1,3,7)" in text
        assert "draft tokens 4 configured · 2 live" in text and "live steps  1 now · 1 switch" in text
        assert app.screen.query_one(SpeculationPane).has_class("-adaptive")
        assert app.live.throughput.switches and app.live.throughput.switches[-1][1:] == (3, 1)
        checks = {check.name: check for check in health_of(app).checks}
        assert checks["drift"].state == "ok" and "accept" not in checks  # the downshift answers the acceptance
        assert (checks["speculation"].state, checks["speculation"].text.split(":")[0]) == \
            ("ok", "adaptive downshift (acceptance low)")
        line = line_of(app)
        assert "adaptive downshift (acceptance low)" in line and "misconfigured" not in line and "1≠3" not in line
        assert "│ switch" in app.screen.query_one(ThroughputPane).border_subtitle


async def test_the_incident_one_step_configured_is_called_a_misconfigured_launch() -> None:
    app, _ = make_app()  # the recorded demo: the mission's redeploy with one MTP step
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        checks = {check.name: check for check in health_of(app).checks}
        assert checks["speculation"].state == "bad"
        assert checks["speculation"].text == "1 draft step configured (misconfigured launch; known-good runs 3)"
        assert "steps        1 " in pane_text(app) and not app.screen.query_one(SpeculationPane).has_class("-adaptive")


def test_snapshot_of_an_adaptive_downshift(snap_compare) -> None:
    app = adaptive_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle(pilot, app))
