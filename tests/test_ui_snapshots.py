"""Snapshots of every dashboard screen, from recorded logs and a fixed clock (160x48, like the tmux test).

Review changed SVGs before accepting them (`pytest --snapshot-update` writes tests/__snapshots__/); they are
generated on one Python version only (tests/conftest.py's SNAPSHOT_PYTHON), which snap_compare enforces.
"""

from __future__ import annotations

from mtptui.ops.feed.items import Connection, GpuReading, GpuStat
from tests.ui_fixtures.support import (DEMO_LOG, SIZE, ControlledFeed, demo_status, make_app, settle,
                                       wait_until)


def recorded_lines(until: str | None = None) -> list[str]:
    """The recorded demo log, up to (excluding) the first line holding ``until``."""
    lines = DEMO_LOG.read_text(encoding="utf-8").splitlines()
    if until is None:
        return lines
    return lines[:next(i for i, line in enumerate(lines) if until in line)]


def test_dashboard_in_the_demo_state(snap_compare) -> None:
    app, _ = make_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle(pilot, app))


def test_dashboard_light_theme_readonly(snap_compare) -> None:
    app, _ = make_app(theme="mtptui-light", readonly=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle(pilot, app))


def test_dashboard_during_startup_with_nvidia_smi(snap_compare) -> None:
    gpus = (GpuStat(0, "NVIDIA RTX A6000", 39_120, 49_140, 0), GpuStat(1, "NVIDIA RTX A6000", 39_050, 49_140, 0))
    status = demo_status(started_at=None, launch_source="profile redeploy-1step")
    app, _ = make_app(recorded_lines(until="Capture draft cuda graph begin"), status=status,
                      extra=[GpuReading(gpus)])
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle(pilot, app))


def test_log_paused_with_filter_and_find(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("backslash", *"batch", "enter")
        await pilot.press("slash", *"accept len: 1.7", "enter", "N")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_log_wrapped_at_the_top(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("w", "home")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_crashed_server(snap_compare, real_logs) -> None:
    status = demo_status(service_state="exited (status 1)", service_phase="failed", started_at=None)
    app, _ = make_app(real_logs / "25-nextn-mtp-crash-sigquit-scheduler-exception-tp3.log", status=status)
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle(pilot, app))


def test_reconnecting_before_any_log(snap_compare) -> None:
    feed = ControlledFeed(demo_status(started_at=None, service_state="unknown", service_phase="unknown", version=None,
                                      launch=None, launch_source=""))
    app, _ = make_app(feed=feed)

    async def run_before(pilot) -> None:
        feed.send(Connection("reconnecting", "connection refused", 4))
        await wait_until(pilot, lambda: app.live.connection.state == "reconnecting")
        app.screen.paint(everything=True)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_help_screen(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
