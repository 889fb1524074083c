"""One fresh number per fact (issue 29, item 2): one GPU poll for the memory and GPU panes, every "now" figure
cleared at a restart (and the health line saying what comes instead of the old process's speed), the log's and
/metrics' request rates over the same minute (or saying why they differ), and old bench and tune results naming
their profile and time."""

from __future__ import annotations

import asyncio

import pytest

from mtptui.ops.feed.items import GpuReading, GpuStat
from mtptui.engines.sglang.logparse import Event
from mtptui.engines.sglang.state.serving import ServingStats
from mtptui.ui import messages
from mtptui.ui.widgets.gpu_pane import GpuPane
from mtptui.ui.widgets.health_line import HealthLine
from mtptui.ui.widgets.memory_pane import MemoryPane
from mtptui.ui.widgets.serving_pane import ServingPane
from mtptui.ui.widgets.speculation_pane import SpeculationPane
from mtptui.ui.widgets.stats_strip import StatsStrip
from tests.test_ui_ops_snapshots import demo_plan
from tests.test_ui_snapshots import recorded_lines
from tests.ui_fixtures.support import ControlledFeed, decode_line, demo_status, make_app, settle, wait_until


def shown(widget) -> str:
    """What a pane shows: its renderable, or its Statics' (a pane made of several)."""
    from textual.widgets import Static

    if hasattr(widget, "renderable"):
        return plain(widget.renderable)
    return "\n".join(plain(static.render()) for static in widget.query(Static))


def plain(renderable, width: int = 100) -> str:
    from rich.console import Console

    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def gpus(util: float) -> tuple[GpuStat, ...]:
    return tuple(GpuStat(i, "NVIDIA RTX A6000", 43_400, 49_140, util, 60.0, 250.0, 300.0) for i in (0, 1))


async def test_the_memory_and_gpu_panes_show_the_one_poll() -> None:
    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=(160, 48)) as pilot:
        feed.push(recorded_lines(until="Decode batch"))
        feed.send(GpuReading(gpus(98.0)))
        await wait_until(pilot, lambda: app.live.gpus.readings == 1)
        await settle(pilot, app)
        memory = plain(app.screen.query_one(MemoryPane).renderable, 120)
        assert "util 98 %" in memory and "util 15" not in memory
        assert "98 %" in plain(app.screen.query_one(GpuPane).renderable, 150)
        feed.send(GpuReading(gpus(15.0)))  # the next poll: both panes move together
        await wait_until(pilot, lambda: app.live.gpus.readings == 2)
        app.screen.paint(everything=True)
        assert "util 15 %" in plain(app.screen.query_one(MemoryPane).renderable, 120)


def old_process_lines(count: int) -> list[str]:
    return [decode_line(i, accept=1.75, tput=34.5) for i in range(count)]


async def test_a_restart_clears_every_now_figure_and_says_what_comes() -> None:
    from mtptui.ops.restart.run import RestartResult

    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    hold = asyncio.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        feed.push(recorded_lines(until="Decode batch"))
        feed.push(old_process_lines(12))
        await settle(pilot, app)
        dashboard = app.screen
        assert "34.5 now" in plain(dashboard.query_one(StatsStrip).renderable)
        panel = dashboard.restart_panel
        panel.run_restart = lambda plan, force: panel.run_worker(hold.wait(), group="restart")  # no real host
        panel.start(demo_plan())
        await wait_until(pilot, lambda: panel.restarting_to == "restored")
        feed.push(old_process_lines(3))  # the old process, still stopping, logs on
        await settle(pilot, app, expected_lines=len(feed.lines))

        def no_old_figure() -> None:
            line = dashboard.query_one(HealthLine).renderable.plain
            assert "restarting to restored…" in line and "tok/s" not in line and "34" not in line, line
            for pane in (StatsStrip, SpeculationPane, ServingPane):
                text = shown(dashboard.query_one(pane))
                assert "34.5" not in text and "1.75" not in text, (pane, text)
            assert app.live.serving.request_rate() is None and not app.live.serving.speed

        no_old_figure()
        await pilot.resize_terminal(80, 24)  # the strip at the smallest size too
        await pilot.pause()
        dashboard.paint(everything=True)
        no_old_figure()
        feed.push(recorded_lines(until="Decode batch"))  # the new process starts and decodes
        feed.push(decode_line(i, accept=3.1, tput=55.0) for i in range(5))
        await settle(pilot, app, expected_lines=len(feed.lines))
        hold.set()
        panel.post_message(messages.RestartFinished(RestartResult("demo", "restored", "process", "ready")))
        await wait_until(pilot, lambda: panel.restarting_to is None and not app.live.awaiting_new)
        dashboard.paint(everything=True)
        assert "55.0 now" in plain(dashboard.query_one(StatsStrip).renderable)
        assert "restarting" not in dashboard.query_one(HealthLine).renderable.plain


def prefill(new: int, running: int = 0) -> Event:
    return Event("prefill", None, {}, 0, {"new_seq": new, "running_req": running})


def serving_over(minutes: float, every_s: float = 10.0) -> ServingStats:
    """Steady load, one request every ``every_s``: admitted in the log, finished in /metrics, scraped every 5 s."""
    serving = ServingStats()
    for step in range(int(minutes * 60 / 5)):
        t = step * 5.0
        if t % every_s == 0:
            serving.apply(prefill(1), t)
        serving.apply_metrics(t, {"requests": float(t // every_s)})
    return serving


def test_the_logs_and_metrics_request_rates_agree_over_the_same_minute() -> None:
    serving = serving_over(3)
    assert serving.request_rate() == pytest.approx(0.1, abs=0.02)
    assert serving.metrics_rate == pytest.approx(0.1, abs=0.02) and not serving.rates_differ()
    early = serving_over(0.5)  # before a whole minute: over the span each has
    assert early.request_rate() == pytest.approx(0.1, abs=0.04) and early.metrics_rate == pytest.approx(0.1, abs=0.04)


def test_when_they_differ_the_pane_says_why() -> None:
    serving = serving_over(3)
    serving.apply_metrics(181.0, {"requests": 18.0})
    for t in (181.0, 181.5, 182.0, 182.5, 183.0):  # a burst admitted, not finished yet
        serving.apply(prefill(2, running=1), t)
    assert serving.rates_differ()
    assert "≠ log: admitted, /metrics: finished" in plain(ServingPane._rates(serving))


async def test_an_old_bench_result_names_its_profile_and_time() -> None:
    from mtptui.bench.compare import compare
    from mtptui.ops.bench_run import BenchOutcome
    from mtptui.ui.bench_state import BenchSettings
    from tests.test_ui_bench_snapshots import BAD, GOOD, open_bench, show

    app, _ = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await open_bench(pilot, app)
        screen = app.screen
        assert screen.query_one("#bench-results").border_title == "results"
        screen.live.begin(BenchSettings())
        await show(pilot, app, messages.BenchFinished(BenchOutcome(GOOD, compare([GOOD], [BAD]))))
        assert screen.query_one("#bench-results").border_title == "results · profile restored · 2026-11-29 15:49 UTC"


async def test_an_old_tune_names_its_base_profile_and_time() -> None:
    from tests.test_ui_tune import open_tune, recorded_run
    from tests.test_ui_tune import show as show_tune

    app, _ = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await open_tune(pilot, app)
        await show_tune(pilot, app, recorded_run())
        app.screen.paint()
        assert app.screen.query_one("#tune-table").border_title == "arms · tune of profile restored · " \
                                                                   "2026-11-29 14:50 UTC"
