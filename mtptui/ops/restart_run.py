"""Run a restart plan: apply it, watch the server start, and roll back on a crash or a timeout.

    result = await Restarter(session, plan, on_event=print).run()

``on_event`` receives every RestartEvent as it happens (mtptui.ops.progress); ``on_log`` the raw log bytes
of the starts being watched. The RestartResult says precisely what happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from mtptui.errors import UserError
from mtptui.ops.progress import Clock, RestartEvent
from mtptui.ops.readonly import refuse_if_readonly
from mtptui.ops.restart import RestartPlan, Step
from mtptui.ops.watch import WatchOutcome, watch_start
from mtptui.remote.errors import RemoteError
from mtptui.remote.logsource import FilePosition, FileLog, JournalDecoder, LogPosition, Start
from mtptui.remote.procinfo import read_process
from mtptui.remote.shell import Command
from mtptui.remote.systemd import SystemdManager

DEFAULT_TIMEOUT_S = 600.0


@dataclass
class RestartResult:
    """What a restart did: ``outcome`` is ready, rolled_back or rollback_failed; ``reason`` why the target failed."""

    host: str
    profile: str
    manager: str
    outcome: str
    reason: str | None = None
    rollback_reason: str | None = None
    pid: int | None = None
    backup: str | None = None
    elapsed_s: float = 0.0
    commands: list[str] = field(default_factory=list)
    events: list[RestartEvent] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome == "ready"

    def summary(self) -> str:
        if self.ok:
            return f"{self.host} is ready with profile {self.profile} (pid {self.pid}) after {self.elapsed_s:.1f} s"
        what = f"profile {self.profile} failed on {self.host}: {self.reason}"
        if self.outcome == "rolled_back":
            return f"{what}; rolled back to the previous launch, which is running again"
        if self.outcome == "rolled_back_stopped":
            return f"{what}; rolled back (nothing was running before, so the server is stopped)"
        return f"{what}; the rollback failed too: {self.rollback_reason}"

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "profile": self.profile, "manager": self.manager, "outcome": self.outcome,
                "ok": self.ok, "reason": self.reason, "rollback_reason": self.rollback_reason, "pid": self.pid,
                "backup": self.backup, "elapsed_s": round(self.elapsed_s, 2), "summary": self.summary(),
                "commands": list(self.commands), "events": [e.to_json() for e in self.events]}


async def log_position(session) -> tuple[LogPosition, Start]:
    """Where the log ends now, so a watch sees only what the new start writes."""
    source = session.log_source
    if isinstance(source, FileLog):
        result = await session.transport.run(Command.of(["stat", "-c", "%i %s", "--", source.path], "stat the log"))
        inode, _, size = result.out.strip().partition(" ")
        if result.ok and inode.isdigit() and size.isdigit():
            return FilePosition(int(inode), int(size)), Start.end()
        return None, Start.beginning()
    words = [*source.prefix, "journalctl", "-u", source.unit, "-n", "1", "-o", "json", "--output-fields=MESSAGE",
             "--no-pager"]
    result = await session.transport.run(Command.of(words, "read the journal's last cursor"))
    chunks = JournalDecoder().feed(result.stdout + b"\n") if result.ok else []
    return (chunks[-1].position, Start.end()) if chunks else (None, Start.beginning())


class Restarter:
    """Executes one RestartPlan."""

    def __init__(self, session, plan: RestartPlan, *, timeout_s: float = DEFAULT_TIMEOUT_S,
                 on_event: Callable[[RestartEvent], None] | None = None,
                 on_log: Callable[[bytes], None] | None = None, force: bool = False,
                 rollback_timeout_s: float | None = None) -> None:
        self.session, self.plan = session, plan
        self.timeout_s, self.on_event, self.on_log, self.force = timeout_s, on_event, on_log, force
        self.rollback_timeout_s = rollback_timeout_s or timeout_s
        self.clock = Clock()
        self.result = RestartResult(plan.host, plan.profile, plan.manager, "started", backup=plan.backup)
        self.launch = "target"

    def emit(self, step: str, message: str, detail: dict | None = None) -> None:
        event = RestartEvent(step, message, self.launch, self.clock(), detail or {})
        self.result.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    async def run(self) -> RestartResult:
        plan = self.plan
        refuse_if_readonly(self.session.readonly, f"restart with profile {plan.profile}", plan.host)
        if plan.blocking and not self.force:
            raise UserError(f"refusing to restart {plan.host} with profile {plan.profile}: SGLang would stop at "
                            f"start ({plan.blocking[0]})")
        self.emit("plan", f"restarting {plan.host} with profile {plan.profile}")
        outcome = await self._start(plan.steps, "the new profile")
        if outcome.status == "ready":
            await self._finish()
        else:
            self.result.reason = outcome.reason
            await self._rollback(outcome)
        self.result.elapsed_s = self.clock()
        self.emit("done", self.result.summary(), {"outcome": self.result.outcome})
        return self.result

    async def _exec(self, step: Step) -> str:
        self.emit(step.step, step.command.what)
        self.result.commands.append(step.command.shown)
        completed = await self.session.transport.run(step.command)
        return completed.check(step.command.what).out

    async def _start(self, steps: list[Step], what: str) -> WatchOutcome:
        """Run ``steps`` (the last one starts the server) and watch the start; failures become outcomes."""
        try:
            position, start, out = None, Start.end(), ""
            for step in steps:
                if step.starts:
                    position, start = await log_position(self.session)
                out = await self._exec(step)
            self.result.pid = await self._new_pid(out)
            self.emit("starting", f"{what} is starting (pid {self.result.pid})", {"pid": self.result.pid})
        except RemoteError as exc:
            self.emit("crashed", f"could not start {what}: {exc}")
            return WatchOutcome("crashed", str(exc))
        timeout_s = self.timeout_s if self.launch == "target" else self.rollback_timeout_s
        outcome = await watch_start(self.session, position, start, self._alive, timeout_s,
                                    lambda step, message, detail: self.emit(step, message, detail), self.on_log)
        if outcome.status in ("timeout", "lost"):
            self.emit(outcome.status, f"{outcome.status}: {outcome.reason}")
        return outcome

    async def _new_pid(self, launch_output: str) -> int | None:
        manager = self.session.manager
        if isinstance(manager, SystemdManager):
            return await manager.main_pid()
        lines = launch_output.strip().splitlines()
        return int(lines[-1]) if lines and lines[-1].isdigit() else None

    async def _alive(self) -> bool:
        manager = self.session.manager
        if isinstance(manager, SystemdManager):
            return (await manager.is_active()) in ("active", "activating", "reloading")
        pid = self.result.pid
        return pid is not None and await read_process(self.session.transport, pid) is not None

    async def _finish(self) -> None:
        self.result.outcome = "ready"
        for step in self.plan.finish:
            try:
                await self._exec(step)
            except RemoteError as exc:
                self.emit("warning", f"the server is ready, but {step.command.what} failed: {exc}")

    async def _rollback(self, outcome: WatchOutcome) -> None:
        from mtptui.ops.rollback import rollback_steps

        self.launch = "rollback"
        self.emit("rolling_back", f"rolling back: {outcome.reason}")
        steps = await rollback_steps(self.session, self.plan, self.result.pid)
        if not self.plan.previous.running:
            await self._stop_only(steps)
            return
        again = await self._start(steps, "the previous launch")
        if again.status == "ready":
            self.result.outcome = "rolled_back"
            self.emit("rolled_back", "rolled back: the previous launch is ready again")
        else:
            self.result.outcome, self.result.rollback_reason = "rollback_failed", again.reason
            self.emit("rollback_failed", f"rollback failed: {again.reason}")

    async def _stop_only(self, steps: list[Step]) -> None:
        try:
            for step in steps:
                await self._exec(step)
            self.result.outcome = "rolled_back_stopped"
            self.emit("rolled_back", "rolled back: nothing ran before, the failed server is stopped")
        except RemoteError as exc:
            self.result.outcome, self.result.rollback_reason = "rollback_failed", str(exc)
            self.emit("rollback_failed", f"rollback failed: {exc}")
