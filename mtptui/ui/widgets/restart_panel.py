"""The dashboard's restart banner, and the restart it runs: plan, confirm, restart, watch, report.

``begin(profile)`` plans in a worker; the plan comes back as a message and the confirm dialog shows it. The
dialog waits for the host's own SGLang to judge the profile (a few seconds, bounded by the host check's timeout)
rather than showing the offline verdict first: a restart costs minutes, and a dialog that changes its verdict
(and its button) under the operator's finger is worse than a short wait. It says who judged. On yes a
second worker (exclusive, group "restart") runs mtptui.ops.restart.run.Restarter, whose events
and result come back as messages. Workers never touch widgets: the handlers here repaint the banner.
The banner stays after the restart ends, so a rollback and its reason cannot be missed.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from rich.console import RenderableType
from textual import on, work
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from mtptui.engines.registry import engine
from mtptui.ops.restart.drain import DRAIN_TIMEOUT_S
from mtptui.text import visible
from mtptui.ui import messages
from mtptui.ui.context import host_app
from mtptui.ui.plain import plain
from mtptui.ui.restart_text import RestartView
from mtptui.ui.screens.restart_confirm import RestartConfirmScreen

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ops.progress import RestartEvent
    from mtptui.ops.restart.plan import RestartPlan
    from mtptui.ui.context import AppContext

RESTART_TIMEOUT_S = 600.0
PROCESS_CHANGED = frozenset({"stopped", "starting", "ready", "crashed", "timeout", "rolled_back", "rollback_failed",
                             "done"})


def file_word(text: str) -> str:
    """``text`` fit for a file name: letters, digits, dot, dash and underscore (host and profile names are the
    user's)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "plan"


def restart_dialog(plan: RestartPlan, handback: RestartPlan | None = None,
                   handback_note: str | None = None) -> RestartConfirmScreen:
    """The confirm dialog of a restart plan: exactly what changes; `c` copies and `s` saves the whole plan, `e`
    enables a unit that is not enabled once the server is ready, `u` hands a hand-started server back to its unit
    (``handback``, when offered)."""
    return RestartConfirmScreen(plan, save_as=file_word(f"restart-{plan.host}-{plan.profile}"), handback=handback,
                                handback_note=handback_note)


class RestartPanel(Widget):
    """Hidden until a restart starts; then its progress, then its outcome."""

    def __init__(self, context: "AppContext", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.context = context
        self.view: RestartView | None = None
        self.timeout_s = RESTART_TIMEOUT_S
        self.advice: str | None = None  # told once the running restart ends ready (the hand-back's host file)
        self.drain_timeout_s = DRAIN_TIMEOUT_S  # behind a gateway: how long the server may take to drain

    def render(self) -> RenderableType:
        return self.view.render() if self.view else ""

    @property
    def running(self) -> bool:
        return any(w.group in ("restart", "restart-plan") and w.is_running for w in self.workers)

    @property
    def restarting_to(self) -> str | None:
        """The profile a running restart brings up (its banner is up and it has not ended), else None."""
        if self.view is None or self.view.outcome is not None:
            return None
        return self.view.profile if any(w.group == "restart" and w.is_running for w in self.workers) else None

    @property
    def finished(self) -> bool:
        """The banner shows how a restart ended (and may be dismissed)."""
        return self.view is not None and self.view.outcome is not None  # set by the finished message itself

    def dismiss(self) -> None:
        """Hide the banner of a finished restart (its outcome stays in the log and the notifications)."""
        if self.finished:
            self.view = None
            self.remove_class("-failed", "-ok", "-end", "-gateway")
            self.show_banner(False)

    def begin(self, profile: str | None) -> None:
        """Plan a restart with ``profile`` (the known-good one when None), or say why not."""
        app, host, session = host_app(self), self.context.host, self.context.session
        if self.context.readonly:
            app.refuse("restart", "Refused: restarting changes the host, and mtptui runs with --readonly.")
        elif session is None or host is None:
            app.notify("No host session: restarts need `mtptui HOST` or `mtptui demo`.", severity="warning")
        elif self.running:
            app.notify("A restart is already running.", severity="warning")
        elif (profile or host.default_profile()) is None:
            app.notify(f"Host {host.name} has no known_good profile; press r to pick one.", severity="warning")
        else:
            name = profile or host.default_profile()
            label = engine(host.engine).label
            app.notify(visible(f"Checking profile {name} with the {label} on {host.name}…"), timeout=4, markup=False)
            self.plan(name)

    @work(exclusive=True, group="restart-plan", exit_on_error=False)
    async def plan(self, profile: str) -> None:
        from mtptui.ops.restart.plan import plan_restart
        from mtptui.ops.restart.drain import DrainOptions
        from mtptui.ops.restart.handback import offers_handback

        session = self._session()
        drain = DrainOptions(timeout_s=self.drain_timeout_s)
        if not offers_handback(session.host):
            self.post_message(messages.RestartPlanned(await plan_restart(session, profile, drain=drain)))
            return
        plan, (handback, note) = await asyncio.gather(plan_restart(session, profile, drain=drain),
                                                      _handback(session, profile))
        self.post_message(messages.RestartPlanned(plan, handback, note))

    def on_restart_planned(self, message: messages.RestartPlanned) -> None:
        plan = message.plan
        dialog = restart_dialog(plan, message.handback, message.handback_note)

        def answered(yes: bool | None) -> None:
            if yes:  # with the unit enabled once ready when e was pressed, the hand-back after u
                self.start(dialog.plan, bool(dialog.plan.blocking))
            else:
                self.app.notify("Restart cancelled: nothing was changed.", timeout=3)
                self.post_message(messages.RestartCancelled(plan.profile))

        self.app.push_screen(dialog, answered)

    def start(self, plan: RestartPlan, force: bool = False) -> None:
        while len(self.app.screen_stack) > 1:  # the progress is on the dashboard
            self.app.pop_screen()
        self.show_view(RestartView(plan.profile, gateway=plan.drain is not None and plan.drain.active))
        self.remove_class("-failed", "-ok", "-end")
        self.show_banner(True)
        self.run_restart(plan, force)
        self.post_message(messages.RestartBegan(plan.profile))

    def show_view(self, view: RestartView) -> None:
        """The banner follows ``view``; a restart with gateway steps has one more line for them."""
        self.view = view
        self.set_class(view.gateway, "-gateway")

    def show_banner(self, shown: bool) -> None:
        """Show or hide the banner; the screen's -restarting class lets a small terminal make room for it."""
        self.set_class(shown, "-active")
        self.screen.set_class(shown, "-restarting")
        self.refresh(layout=True)

    @work(exclusive=True, group="restart", exit_on_error=False)
    async def run_restart(self, plan: RestartPlan, force: bool) -> None:
        from mtptui.ops.restart.handback import host_file_advice, session_for
        from mtptui.ops.restart.run import Restarter

        session = self._session()
        self.advice = host_file_advice(plan, self.context.host)

        def progress(event: RestartEvent) -> None:
            self.post_message(messages.RestartProgress(event))

        restarter = Restarter(session_for(session, plan), plan, timeout_s=self.timeout_s, force=force,
                              on_event=progress, on_drain_timeout=self.go_on_undrained)
        self.post_message(messages.RestartFinished(await restarter.run()))

    def _session(self) -> HostSession:
        """The host session the restart's workers use: begin() starts none without one."""
        session = self.context.session
        if session is None:
            raise RuntimeError("no host session: restarts need `mtptui HOST` or `mtptui demo`")
        return session

    async def go_on_undrained(self, reason: str) -> bool:
        """The worker did not drain in time: the operator chooses to stop it anyway (cutting those requests) or to
        abort (it is put back in the gateway, nothing else changed). Asked from the restart's worker."""
        from mtptui.ui.screens.confirm import ConfirmScreen

        body = plain(f"{reason}.\n\nStop it anyway: the requests it still holds are cut. Abort: it is added back "
                     f"to the gateway and nothing else changes.")
        answer = await self.app.push_screen_wait(ConfirmScreen("The server did not drain", body,
                                                               confirm_label="Stop it anyway"))
        return bool(answer)

    def on_restart_progress(self, message: messages.RestartProgress) -> None:
        if self.view is not None:
            self.view.apply(message.event)
            self.refresh()
        if message.event.step in PROCESS_CHANGED:
            self._look_again()

    def _look_again(self) -> None:
        """The header and panes show the new process now, not at the status poller's next round."""
        poke = getattr(host_app(self).feed, "poke", None)
        if poke is not None:
            poke()

    def on_restart_finished(self, message: messages.RestartFinished) -> None:
        result = message.result
        self.post_message(messages.RestartEnded(bool(result.ok)))
        if self.view is None:
            self.view = RestartView(result.profile)
        self.view.profile = result.profile
        self.view.finish(result)
        self.add_class("-ok" if result.ok else "-failed")
        self.set_class(self.view.end is not None, "-end")
        self.refresh(layout=True)
        self.screen.refresh_bindings()  # the banner may be dismissed now
        self.app.notify(result.summary(), title="restart", severity="information" if result.ok else "error",
                        timeout=8 if result.ok else 20)
        if result.ok and self.advice:
            self.app.notify(visible(self.advice), title="next step", severity="warning", timeout=30, markup=False)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR or event.worker.group not in ("restart", "restart-plan"):
            return
        error = event.worker.error
        what = "Planning the restart" if event.worker.group == "restart-plan" else "The restart"
        self.app.notify(f"{what} failed: {error or type(error).__name__}", title="restart", severity="error",
                        timeout=20)
        if self.view is not None and event.worker.group == "restart":
            self.view.message = f"failed: {error}"
            self.refresh()


async def _handback(session: HostSession, profile: str) -> tuple[RestartPlan | None, str | None]:
    """The hand-back's plan for the dialog, or why there is none (no such unit, the unit runs already)."""
    from mtptui.errors import UserError
    from mtptui.ops.restart.handback import plan_handback
    from mtptui.remote.errors import RemoteError

    try:
        return await plan_handback(session, profile), None
    except (UserError, RemoteError) as exc:
        return None, f"no hand-back offered: {exc}"
