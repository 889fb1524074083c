"""Pilot tests of the bench screen: a real run against the simulated server (plot, table, history, go again),
inline checks of bad input, an unreachable server as a notification, and --readonly not blocking a bench."""

from __future__ import annotations

import io

from rich.console import Console
from textual.widgets import Input, Label

from mtptui.bench import history
from mtptui.bench.verdict_text import verdict_sentence
from mtptui.ui import messages
from mtptui.ui.screens.bench import BenchScreen
from mtptui.ui.widgets.bench_rate_plot import BenchRatePlot
from tests.simserver import free_port
from tests.ui_fixtures.support import SIZE, demo_host, make_app, settle, wait_until


def app_on(url: str, **options):
    """The dashboard on the recorded log, its host's API at ``url`` (a host on this machine: local session)."""
    from mtptui.ops.connect import open_session

    app, _ = make_app(**options)
    app.context.host = demo_host().model_copy(update={"api_url": url})
    app.context.session = open_session(app.context.host, readonly=app.context.readonly)
    return app


async def open_bench(pilot, app) -> BenchScreen:
    await settle(pilot, app)
    await pilot.press("b")
    await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen))
    return app.screen


async def set_field(pilot, screen: BenchScreen, name: str, text: str) -> None:
    field = screen.query_one(f"#bench-{name}", Input)
    field.value = text
    await pilot.pause()


def text_of(screen: BenchScreen, pane: str) -> str:
    """What a pane shows, as plain text."""
    console = Console(width=120, file=io.StringIO())
    console.print(screen.query_one(f"#bench-{pane}").renderable)
    return console.file.getvalue()


def of_type(posted: list, kind: type) -> list:
    return [m for m in posted if isinstance(m, kind)]


async def finished(pilot, screen: BenchScreen, runs: int) -> None:
    def done() -> bool:
        """the run finished"""
        return screen.live.state in ("finished", "failed") and len(history.load_runs()) >= runs
    await wait_until(pilot, done, timeout=60)
    assert screen.live.state == "finished", screen.live.error


async def test_a_run_against_the_simulated_server_plots_tabulates_records_and_goes_again(sim_restored) -> None:
    app = app_on(sim_restored.url)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        screen = await open_bench(pilot, app)
        await set_field(pilot, screen, "requests", "2")
        await set_field(pilot, screen, "max_tokens", "64")
        await pilot.press("s")
        await finished(pilot, screen, 1)
        samples = of_type(posted, messages.BenchSamples)
        assert samples and samples[-1].samples and screen.live.samples == samples[-1].samples
        assert "output tok/s per second" in screen.query_one(BenchRatePlot).border_title
        assert "run " in screen.query_one(BenchRatePlot).border_title
        results = text_of(screen, "results")
        assert "output tok/s" in results and "accept length" in results and "p99" in results
        assert "TTFT" in results and "TPOT" in results and "ITL (per token)" in results and "E2E" in results
        (stored,) = history.load_runs()
        assert stored["fingerprint"]["prompt_set"]["name"] == "rbtree" and stored["fingerprint"]["max_tokens"] == 64
        assert stored["summary"]["requests_ok"] == 2 and stored["summary"]["output_tok_s"] > 0
        assert screen.live.outcome.best.verdict == "no-baseline"
        assert 2.5 < screen.live.outcome.run["summary"]["accept_len"] < 3.8  # 3 MTP steps, 4 draft tokens
        assert of_type(posted, messages.BenchRequestDone) and screen.live.done == 2 and screen.live.failed == 0

        await pilot.press("g")  # the same workload again: compared with the first run
        await finished(pilot, screen, 2)
        second = screen.live.outcome
        assert second.best.verdict != "no-baseline" and second.best.baseline["id"] == stored["id"]
        assert second.run["fingerprint"]["max_tokens"] == 64 and len(history.load_runs()) == 2
        compared = text_of(screen, "compare")
        assert f"vs best earlier: {verdict_sentence(second.best)}" in compared and " tok/s, " in compared
        assert "baseline: profile restored, run " in compared  # the demo host's profile the server runs


async def test_bad_input_is_said_inline_and_starts_nothing() -> None:
    app = app_on(f"http://127.0.0.1:{free_port()}")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bench(pilot, app)
        await set_field(pilot, screen, "concurrency", "0")
        await set_field(pilot, screen, "requests", "ten")
        await set_field(pilot, screen, "max_tokens", "")
        error = lambda name: str(screen.query_one(f"#bench-{name}-error", Label).content)  # noqa: E731
        assert error("concurrency") == "concurrency: between 1 and 256"
        assert error("requests") == "requests: a whole number, not 'ten'"
        assert error("max_tokens") == "max tokens: enter a number"
        assert screen.query_one("#bench-concurrency", Input).has_class("-invalid")
        await pilot.press("s")
        await pilot.pause()
        assert screen.live.state == "idle" and not history.load_runs()
        assert any("Fix the workload" in n.message for n in app._notifications)
        await set_field(pilot, screen, "concurrency", "4")
        assert error("concurrency") == "" and not screen.query_one("#bench-concurrency", Input).has_class("-invalid")


async def test_an_unreachable_server_is_a_notification_not_a_traceback() -> None:
    app = app_on(f"http://127.0.0.1:{free_port()}")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bench(pilot, app)
        await pilot.press("s")
        await wait_until(pilot, lambda: screen.live.state != "running", timeout=30)
        assert screen.live.state == "failed" and screen.live.error
        assert any(n.title == "bench failed" for n in app._notifications)
        assert "no results:" in text_of(screen, "results")
        assert not history.load_runs() and app.return_code is None  # still running, no crash
        await pilot.press("escape")
        assert not isinstance(app.screen, BenchScreen)


async def test_readonly_does_not_block_benchmarking(sim_restored) -> None:
    app = app_on(sim_restored.url, readonly=True)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        screen = await open_bench(pilot, app)
        await set_field(pilot, screen, "requests", "1")
        await set_field(pilot, screen, "max_tokens", "16")
        await pilot.press("s")
        await finished(pilot, screen, 1)
        assert app.readonly and not of_type(posted, messages.ActionRefused)
        assert history.load_runs()[0]["summary"]["requests_ok"] == 1


async def test_q_during_a_run_asks_first_and_yes_quits_without_recording(sim_restored) -> None:
    from mtptui.ui.app import QuitScreen

    app = app_on(sim_restored.url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bench(pilot, app)
        await set_field(pilot, screen, "requests", "3")
        await set_field(pilot, screen, "max_tokens", "128")
        await pilot.press("s")
        await wait_until(pilot, lambda: screen.live.state == "running")
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen))
        assert "not recorded" in str(app.screen.body) and screen.live.state == "running"
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.is_running)
    assert not history.load_runs()
