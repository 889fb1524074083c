"""Snapshots of the bench screen from recorded runs (160x48): idle, running (both series), finished and compared.

The two runs in ``tests/ui_fixtures/bench-*.json`` were measured by the bench screen's engine against the
simulated server (rbtree, concurrency 1, 3 requests, 192 max tokens): the bad redeploy first, then the
restored profile, so the restored run compares with the redeploy's. Events are posted into the screen as its
worker would post them; no clock is read by the screen (times are the samples' own).
"""

from __future__ import annotations

import json

from mtptui.bench.compare import compare
from mtptui.bench.events import RateSample, RequestDone, RunStarted
from mtptui.bench.metrics import RequestMetrics
from mtptui.ops.bench_run import BenchOutcome
from mtptui.ui import messages
from mtptui.ui.bench_state import BenchSettings
from tests.ui_fixtures.support import FIXTURES, SIZE, make_app, settle, wait_until

BAD, GOOD = (json.loads((FIXTURES / name).read_text()) for name in ("bench-redeploy.json", "bench-restored.json"))


def samples_of(run: dict, until_s: float, total: int = 3) -> tuple[RateSample, ...]:
    """The run's per-second timeline up to ``until_s``, as the live samples it was made from."""
    done = 0
    samples = []
    for point in run["timeline"]:
        if point["t"] > until_s:
            break
        done = min(total, int(point["t"] / run["summary"]["duration_s"] * total))
        samples.append(RateSample(point["t"], point["width"], point["reasoning_tok_s"], point["content_tok_s"],
                                  point["in_flight"], done, 0, total, point["accept_len"]))
    return tuple(samples)


async def open_bench(pilot, app) -> None:
    await settle(pilot, app)
    await pilot.press("b")
    await wait_until(pilot, lambda: type(app.screen).__name__ == "BenchScreen")


async def show(pilot, app, *posted) -> None:
    screen = app.screen
    for message in posted:
        screen.post_message(message)
    await pilot.pause(0.6)  # panes repaint at most twice a second
    screen.paint()
    app.clear_notifications()
    await pilot.pause()


def test_bench_idle(snap_compare) -> None:
    app, _ = make_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: open_bench(pilot, app))


def test_bench_running_with_both_series(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await open_bench(pilot, app)
        app.screen.live.begin(BenchSettings())
        first = GOOD["requests"][0]
        metrics = RequestMetrics(ok=True, output_tokens=first["output_tokens"], accept_len=first["accept_len"])
        started = RunStarted("http://127.0.0.1:31000", 3, 1, 1, GOOD["fingerprint"])
        await show(pilot, app, messages.BenchStarted(started),
                   messages.BenchRequestDone(RequestDone(0, "red-black-tree", False, metrics)),
                   messages.BenchSamples(samples_of(GOOD, 7.0)))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_bench_finished_and_compared_with_the_run_before(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await open_bench(pilot, app)
        screen = app.screen
        screen.live.begin(BenchSettings())
        screen.last = BenchSettings()
        screen.live.samples = samples_of(GOOD, 99.0)
        await show(pilot, app, messages.BenchFinished(BenchOutcome(GOOD, compare([GOOD], [BAD]))))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
