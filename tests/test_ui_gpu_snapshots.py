"""Snapshots of the live GPU pane and of the throughput plot's window and idle gaps (160x48, fixed clock).

The GPU readings and log lines go through the dashboard's real feed path (ControlledFeed → pump → messages);
the figures are what the stand-in nvidia-smi prints under a bench run and at rest.
"""

from __future__ import annotations

from mtptui.ops.feed.items import GpuReading, GpuStat
from mtptui.remote.gpu import reading_of
from tests.ui_fixtures.support import SIZE, ControlledFeed, demo_status, make_app, settle, wait_until


def decode_at(minute: int, second: int, tput: float, running: int = 4) -> str:
    return (f"[2026-11-29 14:{minute:02d}:{second:02d} TP0] Decode batch, #running-req: {running}, #full token: 900, "
            f"full token usage: 0.01, accept len: 1.80, accept rate: 0.80, cuda graph: True, "
            f"gen throughput (token/s): {tput:.2f}, #queue-req: 0")


def two_bursts() -> list[str]:
    """Load from 14:50:00 to 14:50:40, idle for four minutes, load again from 14:55:00 to 14:55:50."""
    first = [decode_at(50, s, 180 + (s % 7) * 3) for s in range(0, 41, 2)]
    second = [decode_at(55, s, 150 + (s % 5) * 4) for s in range(0, 51, 2)]
    return first + second


def loaded(step: int) -> GpuReading:
    """A reading as the stand-in gives it while a bench ramps up (utilisation, power and heat rising)."""
    util = min(97, step * 6)
    return GpuReading(tuple(GpuStat(i, "NVIDIA RTX A6000", 46_430 + 40 * i, 49_140, max(util - i, 0),
                                    31 + i + step * 0.8, 24.5 + util * 2.2 + i, 300.0) for i in range(2)))


async def feed_gpus(pilot, app, feed, readings: list[GpuReading]) -> None:
    for reading in readings:
        feed.send(reading)
    await wait_until(pilot, lambda: app.live.gpus.readings >= len(readings))


def test_gpu_pane_under_load_with_its_recent_history(snap_compare) -> None:
    feed = ControlledFeed(status=demo_status())
    app, _ = make_app(feed=feed)

    async def run_before(pilot) -> None:
        await feed_gpus(pilot, app, feed, [loaded(step) for step in range(24)])
        feed.push(two_bursts())
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_gpu_pane_on_a_host_without_nvidia_smi(snap_compare) -> None:
    feed = ControlledFeed(status=demo_status())
    app, _ = make_app(feed=feed)

    async def run_before(pilot) -> None:
        await feed_gpus(pilot, app, feed, [reading_of(127, "", "sh: nvidia-smi: not found")])
        feed.push(two_bursts())
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_throughput_last_minute(snap_compare) -> None:
    feed = ControlledFeed(status=demo_status())
    app, _ = make_app(feed=feed)

    async def run_before(pilot) -> None:
        feed.push(two_bursts())
        await settle(pilot, app)
        await pilot.press("1")
        await pilot.pause(0.6)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_window_keys_switch_the_plot_and_can_be_remapped() -> None:
    feed = ControlledFeed(status=demo_status())
    app, _ = make_app(feed=feed, keymap={"plot.5m": "f5"})
    async with app.run_test(size=SIZE) as pilot:
        feed.push(two_bursts())
        await settle(pilot, app)
        pane = app.screen.query_one("#throughput")
        for key, window, label in (("1", "1m", "last 1 min"), ("f5", "5m", "last 5 min"), ("0", "all", "whole log")):
            await pilot.press(key)
            await pilot.pause(0.6)
            assert pane.time_window == window and pane.border_title.endswith(f" · {label}")
        await pilot.press("5")  # remapped away: 5 no longer changes the window
        await pilot.pause(0.1)
        assert pane.time_window == "all"


def test_the_history_column_shrinks_and_then_goes_on_narrow_panes() -> None:
    from rich.console import Console

    from mtptui.ui.gpu_history import GpuHistory
    from mtptui.ui.widgets.gpu_pane import SPARK_WIDTH, gpu_table, spark_width

    assert spark_width(156) == SPARK_WIDTH and spark_width(96) == 18 and spark_width(76) == 0
    history = GpuHistory()
    for step in range(5):
        history.add(loaded(step))
    for width, spark in ((76, 0), (96, 18)):
        console = Console(width=width, record=True, color_system=None)
        console.print(gpu_table(history, spark_width(width)))
        lines = console.export_text().splitlines()
        assert all(len(line) <= width for line in lines)
        assert "0 RTX A6000" in lines[1] and "300 W" in lines[1] and "45.3/48 GiB" in lines[1]
        assert ("last 27 s" in lines[0]) == bool(spark)
