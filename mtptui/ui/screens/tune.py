"""The tune screen (`T`): plan a tune of the host, confirm it once, watch the arms, read the verdict, keep the best.

``s`` plans (reads the host, changes nothing) and asks once for the whole tune; the ``execute`` worker then runs
mtptui.ops.tune's Tuner and only posts messages; the handlers keep the live run and repaint the table, the
Pareto plot and the status (with the ETA each second). ``a`` aborts: the arm in progress stops and the original
launch is restored, as on quitting. ``k`` saves the best arm as a profile, ``K`` as the host's known-good one.
``m`` turns the adaptive arm on or off for the next tune (`mtptui tune --adaptive`: when the best steps differ by
concurrency, the adaptive proposal is measured as one more arm); the status shows the proposal when there is one.

The screen is installed once per app, so a tune goes on (and its result stays) while the dashboard is shown.
Refused under --readonly (every arm restarts the server).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from mtptui.errors import UserError
from mtptui.remote.errors import RemoteError
from mtptui.text import visible
from mtptui.ui import messages
from mtptui.ui.paint_throttle import PaintThrottle
from mtptui.ui.screens import register
from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.widgets.render_pane import RenderPane
from mtptui.ui.widgets.tune_plot import TunePlot
from mtptui.ui.widgets.tune_status import TuneStatus
from mtptui.ui.widgets.tune_table import TuneTable
from mtptui.ui.plain import plain

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ops.tune.arms import Arm
    from mtptui.ops.tune.plan import TunePlan
    from mtptui.ops.tune.state import TuneEvent, TuneRun
    from mtptui.ui.context import AppContext, HostApp

SCREEN_NAME = "tune"
TICK_S = 1.0
PAINT_INTERVAL_S = 0.5
ABORT_TEXT = "The arm in progress stops, and the original launch is restarted and checked."
NO_SESSION = "This dashboard has no connection to a host to tune."


class TuneScreen(Screen[None]):
    """Title; arms table | Pareto plot; status, ETA and verdict; footer."""

    CSS_PATH = Path(__file__).resolve().parents[1] / "tune.tcss"
    BINDINGS = [
        Binding("s", "start", "Start", id="tune.start"),
        Binding("a", "abort", "Abort", id="tune.abort"),
        Binding("k", "save(False)", "Save best", id="tune.save"),
        Binding("K", "save(True)", "Known-good", id="tune.known_good"),
        Binding("m", "adaptive", "Adaptive arm", id="tune.adaptive", show=False),
        Binding("e", "engines", "Across engines", id="tune.engines", show=False),
        Binding("escape", "back", "Back", id="tune.back"),
        Binding("T", "noop", show=False),
    ]

    def __init__(self, context: "AppContext", **plan_options: Any) -> None:
        super().__init__()
        self.context = context
        self.plan_options = plan_options  # plan_tune's keywords (grid, concurrency, requests, ...)
        self.run: TuneRun | None = None  # the live TuneRun, once the tune started
        self.planning = False
        self._abort: Callable[[], object] | None = None
        self._then: Callable[[], None] | None = None  # what to do once the tune has ended (quit)
        self._throttle = PaintThrottle(self, self.paint, PAINT_INTERVAL_S)

    def compose(self) -> ComposeResult:
        yield RenderPane(id="tune-title")
        with Horizontal(id="tune-top"):
            yield TuneTable(id="tune-table")
            yield TunePlot(id="tune-plot")
        yield TuneStatus(id="tune-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#tune-table").border_title = "arms"
        self.query_one("#tune-status").border_title = "progress and verdict"
        self.set_interval(TICK_S, self._tick)
        self.paint()

    @property
    def running(self) -> bool:
        return self.planning or (self.run is not None and self.run.busy)

    # Actions ---------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start":
            return not self.running
        if action == "abort":
            return self._abort is not None and self.running
        if action in ("adaptive", "engines"):
            return not self.running
        if action == "save":
            return self.best is not None and not self.running
        return True

    @property
    def best(self) -> Arm | None:
        return self.run.verdict.best if self.run is not None and self.run.verdict else None

    def action_start(self) -> None:
        if self.running:
            return
        if self.context.readonly:
            self.notify("Refused: a tune restarts the server, and mtptui runs with --readonly.", title="tune",
                        severity="warning")
            return
        session = self.context.session
        if session is None:
            self.notify(NO_SESSION, title="tune", severity="error")
            return
        self.planning = True
        self.prepare(session)
        self.refresh_bindings()

    def action_abort(self) -> None:
        if self._abort is not None and self.running:
            def answered(yes: bool | None) -> None:
                if yes:
                    self.abort()

            self.app.push_screen(ConfirmScreen("Abort the tune?", ABORT_TEXT, confirm_label="Abort"), answered)

    def abort(self, then: Callable[[], None] | None = None) -> None:
        """Stop the tune (the original launch comes back); ``then`` runs once the tune has ended."""
        self._then = then or self._then
        if self._abort is not None:
            self._abort()

    @property
    def adaptive(self) -> bool:
        """Whether the next tune measures the adaptive proposal as one more arm (plan_tune's ``adaptive``)."""
        return bool(self.plan_options.get("adaptive"))

    def action_adaptive(self) -> None:
        if self.running:
            return
        if self.across is not None:
            self.notify("A tune across engines proposes the winning engine's ladder; the adaptive arm is for the grid "
                        "over the known-good profile (e switches back).", title="tune", severity="warning")
            return
        self.plan_options["adaptive"] = not self.adaptive
        self.notify("The next tune measures the adaptive proposal as one more arm, when there is one." if self.adaptive
                    else "The next tune only proposes adaptive speculation (no adaptive arm).", title="tune")
        self.paint()

    @property
    def across(self) -> str | None:
        """The arms of the next tune when it runs across engines (plan_tune's ``arms``), else None."""
        arms = self.plan_options.get("arms")
        return arms if isinstance(arms, str) else None

    def action_engines(self) -> None:
        """The next tune: the known-good profile against every profile of the host's other engines, or the grid."""
        from mtptui.ops.tune.profile_arms import across_engines

        if self.running:
            return
        arms = across_engines(self.context.host) if self.context.host is not None else None
        if self.across is not None:
            self.plan_options.pop("arms")
            self.notify("The next tune is the grid over the known-good profile.", title="tune")
        elif arms is None:
            self.notify("The host file names no other engine's server ([engines.NAME]) with profiles of it.",
                        title="tune", severity="warning")
        else:
            self.plan_options["arms"] = arms
            adaptive = " (without the adaptive arm: its answer is the winning engine's ladder)" \
                if self.plan_options.pop("adaptive", False) else ""
            self.notify(f"The next tune runs across engines: {arms}{adaptive}.", title="tune")
        self.paint()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_noop(self) -> None:
        """`T` on the tune screen itself does nothing (it would open this screen again)."""

    def action_save(self, known_good: bool) -> None:
        from mtptui.ui.context import profile_store

        best, context, run = self.best, self.context, self.run
        if best is None or run is None or context.host is None:  # a best arm is a run's
            return
        profile = best.profile.model_copy(update={"note": f"best arm of a tune of {run.plan.base}"})
        try:
            saved = profile_store(context).save(context.host, best.name, profile, known_good=known_good)
        except (OSError, UserError) as exc:
            self.notify(f"Not saved: {exc}", title="tune", severity="error")
            return
        context.host, path = saved.host, saved.path
        if context.session is not None:
            context.session.host = context.host
        what = " as the known-good profile" if known_good else ""
        self.notify(f"Saved profile {best.name}{what} to {path}", title="tune", timeout=8)
        self.app.post_message(messages.ProfileSaved(best.name, str(path), known_good))

    # Workers ---------------------------------------------------------------------------------------------

    @work(exclusive=True, group="tune-plan", exit_on_error=False)
    async def prepare(self, session: HostSession) -> None:
        """Plan the tune (reads the host, changes nothing)."""
        from mtptui.ops.tune.plan import plan_tune

        try:
            plan = await plan_tune(session, **self.plan_options)
        except (UserError, RemoteError) as exc:
            self.post_message(messages.TuneFailed(str(exc)))
        else:
            self.post_message(messages.TunePlanned(plan))

    @work(exclusive=True, group="tune", exit_on_error=False)
    async def execute(self, plan: TunePlan) -> None:
        """Run every arm; the tuner's events reach the handlers as messages."""
        from mtptui.ops.tune.runner import Tuner

        session = self.context.session
        if session is None:  # planned with one; a context does not lose its session
            self.post_message(messages.TuneFailed(NO_SESSION))
            return

        def progress(event: TuneEvent) -> None:
            self.post_message(messages.TuneProgress(event))

        tuner = Tuner(session, plan, on_event=progress)
        task = asyncio.create_task(tuner.run())
        self.post_message(messages.TuneStarted(tuner.state, task.cancel))
        load = self.context.background_load
        if load is not None:  # our own background chat would share the server with the measurement
            load.paused = True
        try:
            run = await asyncio.shield(task)
        except asyncio.CancelledError:  # the worker itself was cancelled (the app closes): stop the tune too
            task.cancel()
            run = await task
        except (UserError, RemoteError) as exc:
            self.post_message(messages.TuneFailed(str(exc)))
            return
        finally:
            if load is not None:
                load.paused = False
        self.post_message(messages.TuneEnded(run))

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group in ("tune", "tune-plan") and event.state == WorkerState.ERROR:
            error = event.worker.error
            self.post_message(messages.TuneFailed(f"{type(error).__name__}: {error}"))

    # Handlers --------------------------------------------------------------------------------------------

    def on_tune_planned(self, message: messages.TunePlanned) -> None:
        plan = message.plan
        body = Text(visible("\n".join(plan.describe())))
        self.app.push_screen(ConfirmScreen(f"Tune {plan.host.name}?", body, confirm_label="Tune"),
                             lambda yes: self._confirmed(plan, yes))

    def _confirmed(self, plan: TunePlan, yes: bool | None) -> None:
        if yes:
            self.execute(plan)
        else:
            self.planning = False
            self.notify("Tune cancelled; nothing was changed.", title="tune")
            self.refresh_bindings()

    def on_tune_started(self, message: messages.TuneStarted) -> None:
        self.run, self._abort, self.planning = message.run, message.abort, False
        self.refresh_bindings()
        self.paint()

    def on_tune_progress(self, message: messages.TuneProgress) -> None:
        event = message.event
        if event.kind == "arm" and not event.minor:
            self.notify(str(event), title="tune", timeout=5,
                        severity="information" if event.message.startswith("done") else "warning")
        self._throttle.request()

    def on_tune_ended(self, message: messages.TuneEnded) -> None:
        run = message.run
        self.run, self._abort = run, None
        ok = run.kept is not None
        self.notify(run.verdict.sentence if run.verdict and not run.aborted else (run.restore or "tune ended"),
                    title="tune aborted" if run.aborted else "tune finished",
                    severity="information" if ok else "error", timeout=10)
        self._ended()

    def on_tune_failed(self, message: messages.TuneFailed) -> None:
        self.planning, self._abort = False, None
        self.notify(message.reason, title="tune", severity="error", timeout=10)
        self._ended()

    def _ended(self) -> None:
        self.refresh_bindings()
        self.paint()
        then, self._then = self._then, None
        if then is not None:
            then()

    def _tick(self) -> None:
        if self.run is not None and self.run.busy:
            self.query_one(TuneStatus).show(self.run, self.adaptive, self.across)

    # Painting --------------------------------------------------------------------------------------------

    def paint(self) -> None:
        if not self.is_mounted:
            return
        with self.app.batch_update():
            self.query_one("#tune-title", RenderPane).set(self._title())
            self.query_one(TuneTable).show(self.run)
            self.query_one(TuneTable).border_title = plain(self._arms_title())
            self.query_one(TunePlot).show(self.run)
            status = self.query_one(TuneStatus)
            status.set_class(self.run is not None and self.run.plan.proposal is not None, "-proposal")
            status.set_class(self.run is not None and len(self.run.plan.engines) > 1, "-engines")
            status.show(self.run, self.adaptive, self.across)
        self._throttle.painted()

    def on_screen_resume(self) -> None:
        self.paint()

    def _arms_title(self) -> str:
        """Whose arms they are: the base profile and when the tune started (they outlive a visit elsewhere)."""
        from mtptui.ops.bench_baseline import when

        run = self.run
        if run is None or run.started_at is None:
            return "arms"
        return visible(f"arms · tune of profile {run.plan.base} · {when({'recorded_at': run.started_at})}")

    def _title(self) -> Text:
        run = self.run
        source = f"arms {', '.join(a.name for a in run.plan.arms)}" if run is not None and run.plan.by_profile \
            else f"from profile {run.plan.base}" if run is not None else ""
        what = "no tune yet" if run is None else (
            f"{source} · c={','.join(map(str, run.plan.workload.concurrency))} · "
            f"{run.plan.workload.requests} requests of {run.plan.workload.max_tokens} tokens · keep "
            f"{run.plan.keep}" + (" · adaptive arm" if run.plan.adaptive else ""))
        return Text(visible(f" tune · {self.context.host_label} · {what}"))


def open_tune(app: HostApp) -> TuneScreen:
    """The app's one tune screen, installed on first use so a tune and its result outlive a visit elsewhere."""
    if not app.is_screen_installed(SCREEN_NAME):
        app.install_screen(TuneScreen(app.context), SCREEN_NAME)
    return app.get_screen(SCREEN_NAME, TuneScreen)


register("tune", open_tune)
