"""The bench screen (`b`): choose a workload, run it against the host's API, watch tok/s live, see the verdict.

The worker (``measure``) only runs the engine and posts messages; the handlers own a ``BenchLive`` and repaint
the panes at most twice a second. The screen is installed once per app, so its last result is still there
after going back to the dashboard (e.g. to restore the known-good profile): `g` then runs the same workload
again, and the comparison says how much better (or worse) it is than the run before.

Benchmarking changes nothing on the host, so it is allowed under --readonly.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, HorizontalScroll
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from mtptui.bench.events import BenchEvent, Notice, RateSample, RequestDone, RunStarted
from mtptui.bench.verdict_text import verdict_sentence
from mtptui.errors import UserError
from mtptui.ops.bench_run import ApiTarget, BenchRequest, bench_config, run_bench, target_of_session
from mtptui.text import visible
from mtptui.ui import messages
from mtptui.ui.bench_state import WARMUP, BenchLive, BenchSettings
from mtptui.ui.paint_throttle import PaintThrottle
from mtptui.ui.screens import register
from mtptui.ui.widgets.bench_accept import BenchAccept
from mtptui.ui.widgets.bench_compare import BenchCompare
from mtptui.ui.widgets.bench_form import BenchForm
from mtptui.ui.widgets.bench_progress import BenchProgress
from mtptui.ui.widgets.bench_rate_plot import BenchRatePlot
from mtptui.ui.widgets.bench_results import BenchResults
from mtptui.ui.widgets.key_footer import KeyFooter
from mtptui.ui.widgets.render_pane import RenderPane
from mtptui.ui.plain import PlainButton as Button, plain

if TYPE_CHECKING:
    from mtptui.ui.context import AppContext, HostApp

PAINT_INTERVAL_S = 0.5
SCREEN_NAME = "bench"


def prompt_sets() -> dict[str, str]:
    """Set name → description of the prompt sets in configs/prompts.toml (and the user's file)."""
    from mtptui.bench.prompts import available_sets

    try:
        return {name: s.description for name, s in available_sets().items()}
    except UserError:  # ConfigError is a UserError: a broken user file still leaves the built-in default
        return {}


class BenchScreen(Screen[None]):
    """Form, live plot and accept length on top; progress; results and comparison below."""

    CSS_PATH = Path(__file__).resolve().parents[1] / "bench.tcss"
    AUTO_FOCUS = "#bench-start"
    BINDINGS = [
        Binding("s", "start", "Start", id="bench.start"),
        Binding("g", "again", "Go again", id="bench.again"),
        Binding("i", "details", "Statistics", id="bench.details"),
        Binding("w", "workload", "Workload", id="bench.workload"),
        Binding("escape", "back", "Back", id="bench.back"),
        Binding("b", "noop", show=False),
    ]

    def __init__(self, context: "AppContext", *, sets: dict[str, str] | None = None) -> None:
        super().__init__()
        self.context = context
        self.sets = prompt_sets() if sets is None else sets
        self.live = BenchLive()
        self.last: BenchSettings | None = None
        self.details = False  # the statistics behind the verdict (i)
        self._throttle = PaintThrottle(self, self.paint, PAINT_INTERVAL_S)

    def compose(self) -> ComposeResult:
        yield RenderPane(id="bench-title")
        with Horizontal(id="bench-top"):
            yield BenchForm(self.sets, id="bench-form")
            yield BenchRatePlot(id="bench-plot")
            yield BenchAccept(id="bench-accept")
        yield BenchProgress(id="bench-progress")
        with HorizontalScroll(id="bench-bottom"):  # scrolls on a small terminal (bench.tcss)
            yield BenchResults(id="bench-results")
            yield BenchCompare(id="bench-compare")
        yield KeyFooter()

    def on_mount(self) -> None:
        for pane, title in (("form", "workload"), ("accept", "accept length"), ("progress", "progress"),
                            ("results", "results"), ("compare", "comparison")):
            self.query_one(f"#bench-{pane}").border_title = plain(title)
        self.paint()

    @property
    def target(self) -> ApiTarget | None:
        """The host's API, reached through the host session (an SSH tunnel for a remote host)."""
        session = self.context.session
        return target_of_session(session) if session is not None else None

    # Actions ---------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "again":
            return self.last is not None and self.live.state in ("finished", "failed")
        if action == "workload":  # below 40 rows the results take the form's place once there are some
            return self.has_class("-results") and not self.has_class("-tall")
        return True

    def action_workload(self) -> None:
        """Below 40 rows: show the workload form instead of the results (and back), to change the next run."""
        self.toggle_class("-form")
        if self.has_class("-form"):
            self.query_one(BenchForm).focus_first()

    def action_start(self) -> None:
        settings = self.query_one(BenchForm).settings()
        if settings is None:
            self.notify("Fix the workload first: see the messages under the fields.", title="bench",
                        severity="warning")
        else:
            self.start(settings)

    def action_again(self) -> None:
        if self.last is not None:
            self.start(self.last)

    def action_details(self) -> None:
        self.details = not self.details
        self.paint()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_noop(self) -> None:
        """`b` on the bench screen itself does nothing (it would open this screen again)."""

    @on(Button.Pressed, "#bench-start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_start()

    def start(self, settings: BenchSettings) -> None:
        """Run ``settings`` against the host's API, unless a run is going on or there is no API to run against."""
        if self.live.state == "running":
            self.notify("A run is going on; wait for it to finish.", title="bench", severity="warning")
            return
        target = self.target
        if target is None:
            self.notify("This dashboard has no connection to a host to benchmark.", title="bench", severity="error")
            return
        self.last = settings
        self.remove_class("-form")
        self.live.begin(settings)
        self.query_one(BenchForm).set_running(True)
        self.measure(target, BenchRequest(settings.prompts, settings.concurrency, settings.requests,
                                          settings.max_tokens, WARMUP))
        self.refresh_bindings()
        self.paint()

    # The worker ------------------------------------------------------------------------------------------

    @work(exclusive=True, group="bench", exit_on_error=False)
    async def measure(self, target: ApiTarget, request: BenchRequest) -> None:
        """Run, record and compare; every event reaches the handlers as a message."""
        samples: list[RateSample] = []

        def on_event(event: BenchEvent) -> None:
            if isinstance(event, RateSample):
                samples.append(event)
                self.post_message(messages.BenchSamples(tuple(samples)))
            elif isinstance(event, RequestDone):
                self.post_message(messages.BenchRequestDone(event))
            elif isinstance(event, RunStarted):
                self.post_message(messages.BenchStarted(event))
            elif isinstance(event, Notice):
                self.post_message(messages.BenchNotice(event.message))
            # RunFinished: the outcome posted below carries the result, recorded and compared

        load = self.context.background_load
        if load is not None:  # our own background chat would share the server with the measurement
            load.paused = True
        try:
            outcome = await run_bench(target, bench_config(request), on_event)
        except UserError as exc:
            self.post_message(messages.BenchFailed(str(exc)))
        else:
            self.post_message(messages.BenchFinished(outcome))
        finally:
            if load is not None:
                load.paused = False

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "bench":
            return
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.post_message(messages.BenchFailed(f"{type(error).__name__}: {error}"))
        elif event.state == WorkerState.CANCELLED and self.live.state == "running":
            self.post_message(messages.BenchFailed("the run was cancelled"))

    # Handlers --------------------------------------------------------------------------------------------

    def on_bench_started(self, message: messages.BenchStarted) -> None:
        self.live.started(message.event)
        self.mark()

    def on_bench_samples(self, message: messages.BenchSamples) -> None:
        self.live.samples = message.samples
        self.mark()

    def on_bench_request_done(self, message: messages.BenchRequestDone) -> None:
        event = message.event
        self.live.request_done(event)
        if not event.metrics.ok:
            self.notify(f"request {event.index + 1} failed: {event.metrics.error}"[:300], title="bench",
                        severity="error" if not event.warmup else "warning")
        self.mark()

    def on_bench_notice(self, message: messages.BenchNotice) -> None:
        self.live.notices.append(message.message)
        self.notify(message.message[:300], title="bench", severity="warning")

    def on_bench_finished(self, message: messages.BenchFinished) -> None:
        self.live.finish(message.outcome)
        best = message.outcome.best
        summary = message.outcome.run["summary"]
        tok_s = summary.get("output_tok_s")
        self.notify(f"vs best earlier: {verdict_sentence(best)}" if best.verdict != "no-baseline" else
                    f"{tok_s:.1f} tok/s; recorded as the first run of this workload" if tok_s is not None else
                    "no request succeeded", title="bench finished",
                    severity="error" if summary["requests_failed"] else "information", timeout=8)
        self._ended()

    def on_bench_failed(self, message: messages.BenchFailed) -> None:
        if self.live.state != "running":
            return
        self.live.fail(message.reason)
        self.notify(message.reason, title="bench failed", severity="error", timeout=10)
        self._ended()

    def _ended(self) -> None:
        self.query_one(BenchForm).set_running(False)
        self.refresh_bindings()
        self.paint()

    # Painting --------------------------------------------------------------------------------------------

    def mark(self) -> None:
        """Repaint soon: now if the last paint is half a second old, else when it will be."""
        self._throttle.request()

    def paint(self) -> None:
        if not self.is_mounted:
            return
        live = self.live
        result_tok_s = live.outcome.run["summary"].get("output_tok_s") if live.outcome else None
        self.set_class(live.outcome is not None, "-results")  # a small terminal then shows the results first
        self.refresh_bindings()
        with self.app.batch_update():
            self.query_one("#bench-title", RenderPane).set(self._title())
            self.query_one(BenchRatePlot).show(live.samples, result_tok_s)
            self.query_one(BenchAccept).show(live)
            self.query_one(BenchProgress).show(live)
            self.query_one(BenchResults).show(live)
            self.query_one(BenchResults).border_title = plain(self._results_title())
            self.query_one(BenchCompare).show(live, self.context.host, self.details)
        self._throttle.painted()

    def _results_title(self) -> str:
        """Whose results they are: the profile the run's launch matches and when, so a result from before a
        restart is not read as the new launch's."""
        from mtptui.ops.bench_baseline import matching_profile, when

        outcome = self.live.outcome
        if outcome is None:
            return "results"
        profile = matching_profile(self.context.host, outcome.run.get("fingerprint") or {})
        return visible(f"results · {f'profile {profile}' if profile else 'a launch matching no profile'} · "
                       f"{when(outcome.run)}")

    def on_screen_resume(self) -> None:
        self.paint()

    def _title(self) -> Text:
        host = self.context.host
        api = f"{host.api_url}{' via SSH' if host.ssh else ''}" if host else "no API URL"
        where = f"{self.context.host_label} · {api}"
        running = self.live.settings.describe() if self.live.settings else "no run yet"
        return Text(visible(f" bench · {where} · {running}"))  # names from files: shown as text, never markup


def open_bench(app: HostApp) -> BenchScreen:
    """The app's one bench screen, installed on first use so its results outlive a visit to the dashboard."""
    if not app.is_screen_installed(SCREEN_NAME):
        app.install_screen(BenchScreen(app.context), SCREEN_NAME)
    return app.get_screen(SCREEN_NAME, BenchScreen)


register("bench", open_bench)
