"""Snapshots of the health line with this host's bench history: the recorded bad redeploy is red, naming the
flags and the slowdown, at 160 and 100 columns; the known-good flags at the redeploy's speed are red too.
(Without history, test_ui_snapshots.py shows the line; green against the live simulated server: test_ui_health.py.)"""

from __future__ import annotations

import json

from mtptui.bench.history import append_run
from mtptui.engines.sglang.flags import FlagSet
from tests.ui_fixtures.support import FIXTURES, SIZE, demo_host, demo_status, make_app, settle, wait_until


def record_history() -> None:
    """Three bench runs of each profile, the server log followed (tests/ui_fixtures/health-*-bench.json)."""
    for name in ("redeploy", "restored"):
        for run in json.loads((FIXTURES / f"health-{name}-bench.json").read_text()):
            append_run(run)


async def settle_with_history(pilot, app) -> None:
    """Every recorded line shown and the history read (a thread worker), then everything painted."""
    await wait_until(pilot, lambda: bool(app.screen.history_runs))
    await settle(pilot, app)
    await wait_until(pilot, lambda: app.screen.log_view.following)
    await pilot.pause(0.1)


def test_bad_redeploy_against_the_history(snap_compare) -> None:
    record_history()
    app, _ = make_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle_with_history(pilot, app))


def test_bad_redeploy_at_100_columns(snap_compare) -> None:
    record_history()
    app, _ = make_app()
    assert snap_compare(app, terminal_size=(100, 48), run_before=lambda pilot: settle_with_history(pilot, app))


def test_known_good_flags_but_slow_is_still_red(snap_compare) -> None:
    """No drift, yet the log's 34 tok/s and accept length 1.74 are far below what the known-good profile
    recorded (54 tok/s, 3.03), through the 39 s of the recording: red on speed and acceptance, not on the flags."""
    record_history()
    host = demo_host()
    app, _ = make_app(status=demo_status(launch=FlagSet.from_profile(host.profile("restored"), host.sglang_version)))
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle_with_history(pilot, app))
