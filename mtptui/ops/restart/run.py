"""Run a restart plan as a small state machine that knows what it changed.

    result = await Restarter(session, plan, on_event=print).run()

Under the host's restart lock the plan's steps run one by one, and every step that changed the host (or may
have: the connection dropped while it ran) is recorded. A failure before any change stops there: nothing was
changed and the server is left alone. After a change, a crash or a timeout undoes only the steps that ran
(mtptui.ops.restart.rollback). A dropped connection is reconnected with backoff (mtptui.ops.restart.link); the watch
judges the server, not the connection; a host that stays away is reported as such, with what was done. The
result ends with the host's state as read at the end (mtptui.ops.host_state).

``on_event`` receives every RestartEvent as it happens (mtptui.ops.progress); ``on_log`` the raw log bytes
of the starts being watched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from mtptui.engines.registry import engine
from mtptui.errors import UserError
from mtptui.ops.progress import Clock, RestartEvent
from mtptui.ops.readonly import refuse_if_readonly
from mtptui.ops.restart.plan import RestartPlan, Step
from mtptui.ops.restart.drain import DrainDecision, GatewayDrain
from mtptui.ops.restart.link import READ_TRIES, Link, StepFailed, connection_trouble
from mtptui.ops.restart.result import Ran, RestartResult
from mtptui.ops.watch import WatchOutcome, WatchStatus, log_position, watch_start
from mtptui.remote.bounded import DEFAULT_TIMEOUT_S as DEFAULT_HOST_S
from mtptui.remote.errors import RemoteError
from mtptui.remote.logsource import LogPosition, Start
from mtptui.remote.steps import RestartStep

if TYPE_CHECKING:
    from mtptui.remote.hostlock import HostLock
    from mtptui.ops.connect import HostSession
    from mtptui.remote.transport import Completed

__all__ = ["DEFAULT_TIMEOUT_S", "RECONNECT_S", "RestartResult", "Restarter", "log_position"]

DEFAULT_TIMEOUT_S = 600.0
RECONNECT_S = 120.0  # how long a step, or a watch whose time is up, waits for a host that dropped off
CATCH_UP_S = 60.0  # once the host is back after the time was up: how long to read what the server did meanwhile


def _record(record: list[Ran], ran: Ran) -> None:
    """Add ``ran``; a step that ran once it was tried again replaces its "perhaps"."""
    if record and record[-1].step == ran.step and not record[-1].certain:
        record[-1] = ran
    else:
        record.append(ran)


class Restarter:
    """Executes one RestartPlan."""

    def __init__(self, session: HostSession, plan: RestartPlan, *, timeout_s: float = DEFAULT_TIMEOUT_S,
                 on_event: Callable[[RestartEvent], None] | None = None,
                 on_log: Callable[[bytes], None] | None = None, force: bool = False,
                 rollback_timeout_s: float | None = None, reconnect_s: float = RECONNECT_S,
                 held_lock: HostLock | None = None, on_drain_timeout: DrainDecision | None = None) -> None:
        """``held_lock``: the host's restart lock, already taken by the caller (a tune holds it throughout);
        ``on_drain_timeout``: asked whether to go on when the worker does not drain in time (None: stop there)."""
        self.session, self.plan = session, plan
        self.timeout_s, self.on_event, self.on_log, self.force = timeout_s, on_event, on_log, force
        self.rollback_timeout_s = rollback_timeout_s or timeout_s
        self.clock = Clock()
        self.result = RestartResult(plan.host, plan.profile, plan.manager, "started", backup=plan.backup)
        self.launch = "target"
        self.link = Link(session, plan, self.emit, reconnect_s, held_lock)
        self.operators = held_lock is None  # the operator's own restart (a tune's arms hold the lock themselves)
        self.gateway = GatewayDrain(session, plan.drain, self.emit, on_drain_timeout) \
            if plan.drain is not None and plan.drain.active else None

    async def _forget_tune_marker(self) -> None:
        """An interrupted tune's marker goes once the operator restarted the host (CLI, dashboard, hand-back)."""
        from mtptui.ops.tune_marker import forget_marker

        await forget_marker(self.session)

    def emit(self, step: RestartStep, message: str, detail: dict[str, Any] | None = None) -> None:
        event = RestartEvent(step, message, self.launch, self.clock(), detail or {})
        self.result.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    async def run(self) -> RestartResult:
        plan = self.plan
        refuse_if_readonly(self.session.readonly, f"restart with profile {plan.profile}", plan.host)
        if plan.blocking and not self.force:
            label = engine(plan.engine).label
            raise UserError(f"refusing to restart {plan.host} with profile {plan.profile}: {label} would stop at "
                            f"start ({plan.blocking[0]})")
        await self.link.take_lock()
        try:
            self.emit("plan", f"restarting {plan.host} with profile {plan.profile}")
            await self._locked()
            if self.operators and self.result.ok:
                await self._forget_tune_marker()
        finally:
            await self.link.release()
        self.result.elapsed_s = self.clock()
        self.emit("done", self.result.summary(), {"outcome": self.result.outcome})
        return self.result

    async def _locked(self) -> None:
        stale = await self._stale()
        outcome = WatchOutcome("failed", stale) if stale else await self._drained_apply()
        if outcome.status == "ready":
            await self._finish()
            outcome = await self._back_in_gateway(outcome)
        if outcome.status != "ready":
            await self._not_ready(outcome)
        await self._gateway_anyway()
        if self.result.outcome != "unreachable":
            await self._read_end()

    async def _not_ready(self, outcome: WatchOutcome) -> None:
        if outcome.status == "unreachable":
            self._unreachable(outcome.reason)
        elif not self.result.changed:
            self.result.outcome, self.result.reason = "aborted", outcome.reason
            self.emit("aborted", f"stopped before changing anything: {outcome.reason}")
        else:
            self.result.reason = outcome.reason
            await self._rollback(outcome)

    async def _stale(self) -> str | None:
        """Why the plan no longer describes the host (the unit or the server changed since), or None."""
        try:
            return await self.link.retrying(self._changed_since_plan)
        except (StepFailed, RemoteError) as exc:
            return f"cannot read the host before changing it: {exc}"

    async def _changed_since_plan(self) -> str | None:
        previous, plan = self.plan.previous, self.plan
        text, pid = await self.session.manager.current_run(previous.unit_path if plan.new_unit else None)
        if text != (previous.unit_text if plan.new_unit else None):
            return f"{previous.unit_path} changed since the plan was made; plan the restart again"
        if pid != previous.pid:
            return f"the server on {self.plan.host} changed since the plan was made; plan the restart again"
        return None

    # The gateway steps (mtptui.ops.restart.drain) ---------------------------------------------------------

    async def _drained_apply(self) -> WatchOutcome:
        """Out of the gateway and idle first, when the plan has gateway steps; a worker taken out is put back
        when the steps before the stop fail."""
        if self.gateway is not None:
            failed = await self.gateway.take_out()
            if failed is not None:
                self.emit("failed", f"the gateway steps did not complete: {failed}")
                await self._gateway_anyway()
                return WatchOutcome("failed", failed)
        return await self._apply()

    async def _back_in_gateway(self, outcome: WatchOutcome) -> WatchOutcome:
        """The ready server back in the gateway, ready there, a canary answered; a failure is rolled back."""
        if self.gateway is None:
            return outcome
        failed = await self.gateway.put_back(canary=True)
        if failed is None:
            return outcome
        self.result.outcome = "started"
        self.emit("failed", f"the server is ready, but the gateway steps did not complete: {failed}")
        return WatchOutcome("failed", failed)

    async def _gateway_anyway(self) -> None:
        """Whatever happened, a worker taken out of the gateway is put back (a drained worker is never left out)."""
        if self.gateway is not None:
            if (failed := await self.gateway.put_back(canary=False)) is not None:
                self.gateway.left_out(failed)
                self.emit("warning", f"could not add the worker back to the gateway: {failed}")
            self.result.gateway = self.gateway.report

    async def _out_for_rollback(self) -> None:
        """A worker asked back into the gateway (its canary, or its wait for ready there, failed) may be serving
        traffic: out again and idle before the rollback stops it. If it cannot be taken out, the rollback still
        runs, and says so; either way it is put back once the rollback is done (``_gateway_anyway``)."""
        if self.gateway is None or not self.gateway.added:
            return
        if (failed := await self.gateway.take_out(again=True)) is not None:
            self.emit("warning", f"could not take {self.gateway.plan.worker_url} out of the gateway again: {failed}; "
                                 f"rolling back anyway, so the requests it holds may be cut")

    # Steps -------------------------------------------------------------------------------------------------

    async def _apply(self) -> WatchOutcome:
        """Run the plan's steps; a failure becomes an outcome; a started server is then watched."""
        out, position, start = "", None, Start.end()
        for step in self.plan.steps:
            try:
                if step.starts:
                    position, start = await self.link.retrying(lambda: log_position(self.session))
                out = await self._step(step, self.result.changed)
            except StepFailed as failed:
                status: WatchStatus = "unreachable" if failed.unreachable else "failed"
                self.emit(status, f"{step.command.what} did not complete: {failed.reason}")
                return WatchOutcome(status, failed.reason)
        return await self._started(out, position, start, "the new profile")

    async def _step(self, step: Step, record: list[Ran]) -> str:
        """Run one step and record it once it ran (or may have); StepFailed when it did not complete."""
        await self.link.hold_lock()
        self.emit(step.step, step.command.what)
        self.result.commands.append(step.command.shown)
        try:
            # a step (systemctl restart of a Type=notify unit) may take as long as the server's start
            completed = await self.session.transport.run(step.command, timeout=max(self.timeout_s, DEFAULT_HOST_S))
        except RemoteError as exc:
            if not connection_trouble(exc):
                raise StepFailed(str(exc)) from None
            return await self._dropped(step, record, exc)
        if not completed.ok:
            if not step.atomic:  # a failed command may still have changed something
                _record(record, Ran(step.step, step.command.what, certain=False))
            raise StepFailed(_failure(completed, step))
        _record(record, Ran(step.step, step.command.what))
        return completed.out

    async def _dropped(self, step: Step, record: list[Ran], exc: RemoteError) -> str:
        """The connection dropped during ``step``: it may have run. A start is judged by watching the server."""
        _record(record, Ran(step.step, step.command.what, certain=False))
        self.emit("connection", f"the connection dropped during {step.command.what}: {exc}", {"state": "lost"})
        if not await self.link.reach():
            raise StepFailed(f"the connection dropped during {step.command.what} ({exc}) and the host did not "
                             f"come back within {self.link.reconnect_s:g} s", unreachable=True)
        if step.starts:
            return ""
        raise StepFailed(f"the connection dropped during {step.command.what}: {exc}", retry=True)

    # Watching ----------------------------------------------------------------------------------------------

    async def _started(self, out: str, position: LogPosition, start: Start, what: str) -> WatchOutcome:
        try:
            self.result.pid = await self.link.retrying(lambda: self._new_pid(out))
        except StepFailed as failed:
            return WatchOutcome("unreachable", failed.reason)
        self.emit("starting", f"{what} is starting (pid {self.result.pid})", {"pid": self.result.pid})
        timeout_s = self.timeout_s if self.launch == "target" else self.rollback_timeout_s
        outcome = await watch_start(self.session, position, start, self._exited, timeout_s, self.emit, self.on_log)
        if outcome.status == "unreachable" and await self.link.reach():  # judge the server now it can be seen
            outcome = await watch_start(self.session, None, start, self._exited, CATCH_UP_S, self.emit, self.on_log,
                                        watch=outcome.watch)
        if outcome.status in ("timeout", "lost", "unreachable"):
            self.emit(outcome.status, f"{outcome.status}: {outcome.reason}")
        return outcome

    async def _new_pid(self, launch_output: str) -> int | None:
        return await self.session.manager.started_pid(launch_output)

    async def _exited(self) -> str | None:
        return await self.session.manager.exited(self.result.pid)

    # Ending ------------------------------------------------------------------------------------------------

    async def _finish(self) -> None:
        self.result.outcome = "ready"
        for step in self.plan.finish:
            try:
                await self._step(step, [])
            except StepFailed as failed:
                self.emit("warning", f"the server is ready, but {step.command.what} failed: {failed.reason}")

    async def _rollback(self, outcome: WatchOutcome) -> None:
        from mtptui.ops.restart.rollback import rollback_steps

        self.launch = "rollback"
        self.emit("rolling_back", f"rolling back: {outcome.reason}")
        await self._out_for_rollback()
        changed = {ran.step for ran in self.result.changed}
        try:
            steps = await self.link.retrying(lambda: rollback_steps(self.session, self.plan, self.result.pid, changed))
            self._rolled_back(await self._undo(steps))
        except StepFailed as failed:
            if failed.unreachable:
                self._unreachable(failed.reason)
            else:
                self.result.outcome, self.result.rollback_reason = "rollback_failed", failed.reason
                self.emit("rollback_failed", f"rollback failed: {failed.reason}")

    async def _undo(self, steps: list[Step]) -> WatchOutcome | None:
        """Run the undoing steps, each again after a reconnect (they are safe to repeat); the restart's watch."""
        out, position, start = "", None, Start.end()
        for step in steps:
            if step.starts:
                position, start = await self.link.retrying(lambda: log_position(self.session))
            out = await self._undo_step(step)
        if not any(step.starts for step in steps):
            return None
        outcome = await self._started(out, position, start, "the previous launch")
        if outcome.status == "unreachable":
            raise StepFailed(outcome.reason or "the host could not be reached", unreachable=True)
        return outcome

    async def _undo_step(self, step: Step) -> str:
        for _ in range(READ_TRIES):
            try:
                return await self._step(step, self.result.undone)
            except StepFailed as failed:
                if not failed.retry:
                    raise
                last = failed
        raise StepFailed(f"{last.reason} ({READ_TRIES} times)")

    def _rolled_back(self, again: WatchOutcome | None) -> None:
        if again is not None and again.status != "ready":
            self.result.outcome, self.result.rollback_reason = "rollback_failed", again.reason
            self.emit("rollback_failed", f"rollback failed: {again.reason}")
        elif again is None and not self.plan.previous.running:
            self.result.outcome = "rolled_back_stopped"
            self.emit("rolled_back", "rolled back: nothing ran before, the failed server is stopped")
        else:
            self.result.outcome = "rolled_back"
            self.emit("rolled_back", "rolled back: the previous launch is ready again" if again else
                      "rolled back: the previous unit is back, and the server was never stopped")

    def _unreachable(self, reason: str | None) -> None:
        """The host is away: nothing more can be done or known; the report says what was done."""
        if self.launch == "rollback":
            self.result.rollback_reason = reason
        else:
            self.result.reason = reason
        self.result.outcome = "unreachable"
        self.emit("unreachable", f"the host could not be reached: {reason}; what runs there now is unknown")

    async def _read_end(self) -> None:
        from mtptui.ops.host_state import read_end_state

        try:
            self.result.end = await self.link.retrying(lambda: read_end_state(self.session, self.plan))
        except (StepFailed, UserError) as exc:
            self.emit("warning", f"cannot read the host's state at the end: {exc}")


def _failure(completed: Completed, step: Step) -> str:
    lines = [line.strip() for line in completed.err.strip().splitlines() if line.strip()]
    return f"{step.command.what} failed: {lines[-1] if lines else f'exit status {completed.exit_status}'}"
