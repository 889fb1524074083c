"""Snapshots of the fleet screen from fixed figures (the live screen is tested against a real Prometheus in
tests/test_fleet_prometheus.py): a healthy, a collapsing, a slower and a stopped instance, and its help."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtptui.fleet.rows import Row, Snapshot
from mtptui.fleet.settings import load_settings
from mtptui.fleet.view import FleetView
from tests.ui_fixtures.support import SIZE, wait_until

pytestmark = pytest.mark.usefixtures("utc")  # the clock on screen reads in UTC

NOW = 1796045400.0
SPARK = [None] * 8 + [41.0, 45.2, 48.9, 51.3, 52.0, 53.4, 52.8, 53.9, 54.1, 53.2, 53.8, 54.0]


def rows() -> list[Row]:
    gpu = "/home/ops/.config/mtptui/hosts/ct129.toml"
    return [
        Row("10.0.0.5:30000", "sglang", True, 0.6, version="0.5.12.post1", version_source="host file",
            output_tok_s=34.1, accept_len=1.08, accept_len_source="spec_accept_length gauge", running=1, queued=3,
            kv_usage=0.0021, ttft_p50_ms=1342.0, ttft_p99_ms=1987.0, itl_p50_ms=28.1, itl_p99_ms=59.2,
            request_rate=0.71, error_rate=0.0, decode_tok_s=34.9, health="warn", host="ct129", host_file=Path(gpu),
            health_reasons=("acceptance collapse: accept length 1.08, the drafts are almost never accepted",),
            spark=[v and v * 0.64 for v in SPARK]),
        Row("10.0.0.6:30000", "sglang", True, 0.3, version="0.5.23", version_source="metric families",
            output_tok_s=93.3, accept_len=3.11, accept_len_source="spec_verify_calls_total", running=2, queued=0,
            kv_usage=0.0003, ttft_p50_ms=50.0, ttft_p99_ms=99.0, itl_p50_ms=15.0, itl_p99_ms=74.9,
            request_rate=1.9, error_rate=0.47, decode_tok_s=51.2, health="ok", spark=SPARK),
        Row("10.0.0.7:30000", "sglang", True, 0.9, version="0.5.23", version_source="metric families",
            output_tok_s=21.9, running=1, queued=0, kv_usage=0.0001, ttft_p50_ms=50.0, ttft_p99_ms=99.0,
            itl_p50_ms=49.8, itl_p99_ms=59.9, request_rate=0.68, error_rate=0.0, decode_tok_s=22.0, health="ok",
            spark=[v and v * 0.4 for v in SPARK]),
        Row("10.0.0.8:30000", "sglang", False, 1.2, last_error="connection refused", version="0.5.23",
            version_source="metric families", health="down", health_reasons=("down: connection refused",),
            spark=SPARK[:12] + [None] * 8),
    ]


def fleet_app(theme: str | None = None):
    from mtptui.ui.fleet.app import FleetApp

    async def collector() -> Snapshot:
        return Snapshot("http://prometheus.internal:9090", NOW, 60, 3600, 'job="sglang"', 30, rows())

    settings = load_settings(url="http://prometheus.internal:9090", match='job="sglang"')
    hosts = {"10.0.0.5:30000": (Path("/home/ops/.config/mtptui/hosts/ct129.toml"), None)}
    return FleetApp(settings, hosts, FleetView(), theme=theme, collector=collector, clock=lambda: NOW, keymap={})


def shown(app) -> bool:
    """the fixed rows are on screen"""
    return app.screen.updated_at is not None


def test_fleet_screen(snap_compare) -> None:
    app = fleet_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: wait_until(pilot, lambda: shown(app)))


def test_fleet_sorted_by_accept_and_filtered_light(snap_compare) -> None:
    app = fleet_app("mtptui-light")

    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: shown(app))
        await pilot.press("s", "s", "s", "slash", *"!down", "enter", "down")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_fleet_help(snap_compare) -> None:
    app = fleet_app()

    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: shown(app))
        await pilot.press("question_mark")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_table_never_scrolls_sideways_and_follows_a_resize() -> None:
    from textual.widgets import DataTable

    app = fleet_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: shown(app))
        table = app.screen.query_one(DataTable)
        await wait_until(pilot, lambda: 0 < table.virtual_size.width <= table.size.width)
        assert "job" not in app.screen.columns and "instance" in app.screen.columns
        await pilot.resize_terminal(160, 48)
        await wait_until(pilot, lambda: "job" in app.screen.columns and table.row_count == 4)
        assert table.virtual_size.width <= table.size.width
