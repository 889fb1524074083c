"""Live, against the simulated 0.5.12.post1 (a demo host started with an adaptive profile and a low-acceptance
load, MTPTUI_SIM_ACCEPTANCE=0.2): the dashboard reads the launch from the running process and the live steps
from the log and /server_info, shows "3 configured · 1 live", and the health line calls it an adaptive downshift,
not the incident."""

from __future__ import annotations

import pytest

from mtptui.demo.run import DemoRun, dump_host
from tests.health_support import health_of, line_of
from tests.ui_fixtures.support import SIZE, fixed_clock, wait_until

TIMEOUT_S = 90


@pytest.fixture
def adaptive_run(tmp_path, monkeypatch):
    """The demo host whose known-good profile runs adaptive speculation, started on it under a workload whose
    drafts are seldom accepted; stopped afterwards."""
    run = DemoRun.prepare(tmp_path, speed=200)
    restored = run.host.profile("restored")
    adaptive = restored.model_copy(update={"flags": {**restored.flags, "speculative-adaptive": True},
                                           "env": {**restored.env, "MTPTUI_SIM_ACCEPTANCE": "0.2"}})
    run.host = run.host.model_copy(update={"profiles": {**run.host.profiles, "adaptive": adaptive},
                                           "known_good": "adaptive"})
    run.host_path.write_text(dump_host(run.host), encoding="utf-8")
    for name, value in run.server_environment().items():
        monkeypatch.setenv(name, value)
    run.start("adaptive")
    yield run
    run.stop()


async def test_the_live_adaptive_downshift_is_configured_3_live_1_and_not_the_incident(adaptive_run) -> None:
    from mtptui.cli.commands.demo import demo_dashboard
    from mtptui.ops.connect import open_session
    from mtptui.ui.app import MtpApp
    from tests.test_ui_speculation import pane_text

    app = MtpApp(*demo_dashboard(adaptive_run, open_session(adaptive_run.host)), clock=fixed_clock,
                 cursor_blink=False, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        def downshifted() -> bool:
            """the running launch read, the log's switch seen, the health line judged"""
            view, health, host = app.live.speculation(), health_of(app), app.live.host
            return view is not None and view.downshifted and health is not None and \
                any(check.name == "speculation" for check in health.checks) and \
                host is not None and host.launch_source.startswith("running pid")

        await wait_until(pilot, downshifted, timeout=TIMEOUT_S)
        app.screen.paint(everything=True)
        view = app.live.speculation()
        assert (view.configured_steps, view.live_steps, view.candidates) == (3, 1, (1, 3, 7))
        assert app.live.host.launch_source.startswith("running pid")  # the process's own command line
        assert "steps        3 configured · 1 live (adaptive: 1,3,7)" in pane_text(app)
        line = line_of(app)
        assert "adaptive downshift (acceptance low)" in line or "adaptive 3→1" in line
        assert "misconfigured" not in line and "1 step configured" not in line and "steps 1≠3" not in line
