"""Run a tune plan: every arm (restart, check the launch, bench each concurrency, canary), the verdict, then the
original launch back (or the best arm with keep = best).

    run = await Tuner(session, plan, on_event=print).run()

An abort restores the original too: cancelling the task that runs ``run()`` (Ctrl+C, SIGTERM, SIGHUP, the
screen's abort or quit) or losing the connection stops the arm in progress (``aborted``), and the original is
restarted before ``run()`` returns (the connection is reopened for it). The restore is shielded: a second
cancel while it runs does not stop it. Each arm's restart rolls back by itself when the arm's server crashes or
never becomes ready; that arm is ``failed`` and the tune goes on.

The tune holds the host's restart lock from its first arm to its restore (mtptui.ops.tune_marker), with a marker
beside it naming the original while an arm may run; before each measurement it checks that the server is still
the one its arm's restart started (someone's ``systemctl restart`` would otherwise be measured).
"""

from __future__ import annotations

from datetime import datetime, timezone

import asyncio
from typing import TYPE_CHECKING, Any, Callable, Coroutine

from mtptui.errors import UserError
from mtptui.ops.readonly import refuse_if_readonly
from mtptui.ops.tune.adaptive import adaptive_arms
from mtptui.ops.tune.arms import Arm, Measured
from mtptui.ops.tune.canary import CanaryOutputs, judge as judge_canary, run_canary
from mtptui.ops.tune.plan import TunePlan, engine_session, tune_session
from mtptui.ops.tune.switch import stop_engine
from mtptui.ops.tune.state import TuneEvent, TuneRun
from mtptui.ops.tune.verify import launch_mismatch
from mtptui.remote.errors import ConnectError, ConnectionLost

if TYPE_CHECKING:
    from pathlib import Path

    from mtptui.bench.events import BenchEvent
    from mtptui.ops.connect import HostSession
    from mtptui.ops.progress import RestartEvent
    from mtptui.remote.hostlock import HostLock
    from mtptui.remote.transport import Transport

RESTART_TIMEOUT_S = 600.0
MINOR_RESTART_STEPS = frozenset({"loading", "allocating", "capturing_graphs", "warming_up", "backup", "reload"})
FIRST_WARMUP = 2  # warm-up requests before an arm's first concurrency: a fresh server's first steps are slow


class ArmFailed(Exception):
    """The arm in progress cannot be measured; the message says why."""


class Tuner:
    """Executes one TunePlan; ``state`` is the live TuneRun."""

    def __init__(self, session: HostSession, plan: TunePlan, *, on_event: Callable[[TuneEvent], None] | None = None,
                 restart_timeout_s: float = RESTART_TIMEOUT_S, history_path: Path | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.session = tune_session(session, plan)
        self.plan, self.on_event = plan, on_event or (lambda event: None)
        self.restart_timeout_s, self.history_path = restart_timeout_s, history_path
        self.state = TuneRun(plan, clock) if clock else TuneRun(plan)
        self.references: dict[str, CanaryOutputs] = {}  # per engine: the canary compares within one only
        self.locks: dict[str, HostLock] = {}  # per engine: the restart lock of each engine's server
        self.marker: str | None = None
        self.arm_pid: int | None = None  # the server the arm's restart started
        self.sessions: dict[str, HostSession] = {}
        self.running: str | None = plan.original.engine  # the engine whose server runs (None: none, or unknown)

    def on(self, engine: str) -> HostSession:
        """The session seen running ``engine``: the same connection, that engine's server, log and API."""
        if engine not in self.sessions:
            self.sessions[engine] = engine_session(self.session, engine)
        return self.sessions[engine]

    def emit(self, kind: str, message: str, arm: Arm | None = None, minor: bool = False) -> None:
        if kind == "switch":
            self.state.switches.append(message)
        if kind == "phase":
            self.state.phase = message
            if arm is not None:
                arm.phase = message
        self.on_event(TuneEvent(kind, message, arm.name if arm else None, minor))

    def _restart_event(self, event: RestartEvent, arm: Arm | None) -> None:
        self.emit("restart", str(event), arm, minor=event.step in MINOR_RESTART_STEPS)

    async def run(self) -> TuneRun:
        """Run every arm, judge, keep; returns the TuneRun (``aborted`` says why it stopped early, if it did)."""
        run = self.state
        refuse_if_readonly(self.session.readonly, "run a tune (every arm restarts the server)", self.plan.host.name)
        await self._hold()
        run.state, run.started = "running", run.clock()
        run.started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.emit("plan", f"tuning {self.plan.host.name}: {len(self.plan.runnable)} arm(s)")
        try:
            keep = await self._arms()
            await _shielded(self._keep(keep), lambda: self.emit("notice", "the original is being restored; it "
                                                                          "cannot be interrupted"))
        finally:
            await self._let_go()
        run.state, run.ended = ("aborted" if run.aborted else "finished"), run.clock()
        self.emit("finished", self._ending())
        return run

    async def _arms(self) -> str:
        """Every arm, then the verdict; what to keep (the original when the tune stopped early)."""
        try:
            for arm in self.plan.runnable:
                await self._arm(arm)
            for arm in adaptive_arms(self.plan):  # SGLang's grid: the proposal when the best steps differ by
                await self._arm(arm)  # concurrency
            self._judge()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            assert task is not None  # run() is awaited in a task: the one being cancelled
            task.uncancel()
            return self._stop("aborted")
        except (ConnectionLost, ConnectError) as exc:
            return self._stop(f"lost the connection: {exc}")
        except Exception as exc:  # noqa: BLE001  (whatever stopped it, the original comes back)
            return self._stop(f"stopped by an error: {exc}")
        return self.plan.keep

    async def _hold(self) -> None:
        """The restart lock of every engine's server for the whole tune (HostLocked when another restart has
        one: nothing changed), and the marker naming the original beside the lock of the host's own engine."""
        from mtptui.ops.restart.link import holder_name
        from mtptui.ops.tune_marker import marker_path, marker_text, write_marker
        from mtptui.remote.hostlock import HostLock

        holder = holder_name(self.plan.original.name).replace("mtptui restart with profile", "mtptui tune, original")
        for engine in self.plan.engines:
            session = self.on(engine)
            path = await session.manager.restart_lock()
            if path is None or any(lock.path == path for lock in self.locks.values()):
                continue
            lock = HostLock(session.transport, path, holder, session.manager.prefix)
            try:
                await lock.acquire()
            except BaseException:
                await self._release()
                raise
            self.locks[engine] = lock
        path = await self.session.manager.restart_lock()  # beside the host's own engine's: check and diff read it
        if path is None:
            return
        self.marker = marker_path(path)
        text = marker_text(holder, self.plan.original.name)
        (await self.session.transport.run(write_marker(self.session, self.marker, text))).check("writing the marker")

    async def _release(self) -> None:
        for lock in self.locks.values():
            await lock.release()

    async def _let_go(self) -> None:
        """The lock released; the marker removed once the host runs the original (or the kept arm) again."""
        from mtptui.ops.tune_marker import clear_marker

        try:
            if self.marker is not None and self.state.kept is not None:
                await self.session.transport.run(clear_marker(self.session, self.marker))
        except UserError as exc:
            self.emit("notice", f"the tune marker {self.marker} stays on the host: {exc}")
        finally:
            await self._release()

    def _stop(self, why: str) -> str:
        """The tune stops early: the arm in progress and the ones not run are aborted; the original comes back."""
        self.state.aborted = why
        for arm in self.plan.arms:
            if arm.status == "pending":
                arm.status, arm.reason = "aborted", "not run: the tune stopped"
            elif arm.status in ("running", "aborted") and arm.reason is None:
                arm.status, arm.reason = "aborted", why
        self._judge()
        return "original"

    def _judge(self) -> None:
        from mtptui.ops.tune.engines_verdict import judge_profiles
        from mtptui.ops.tune.verdict import judge

        levels, original = list(self.plan.workload.concurrency), self.plan.original
        self.state.verdict = judge_profiles(self.plan.arms, levels, original.name, original.engine) \
            if self.plan.by_profile else judge(self.plan.arms, levels, self.plan.original_values)
        if self.plan.engine_ladder:
            from mtptui.ops.tune.ladder import ladder_of

            self.state.ladder = ladder_of(self.plan.arms, levels, self.state.verdict.best, self.plan.host)
        self.emit("verdict", self.state.verdict.sentence)

    # One arm ----------------------------------------------------------------------------------------------

    async def _arm(self, arm: Arm) -> None:
        arm.status, arm.started, self.state.current = "running", self.state.clock(), arm.name
        try:
            await self._switch(arm.engine, arm)
            if await self._restart(arm.name, arm, arm.engine):
                await self._check_launch(arm)
                for index, concurrency in enumerate(self.plan.workload.concurrency):
                    await self._bench(arm, concurrency, FIRST_WARMUP if index == 0 else 1)
                await self._canary(arm)
                arm.status = "done"
        except ArmFailed as exc:
            arm.status, arm.reason = "failed", str(exc)
        except (ConnectionLost, ConnectError, asyncio.CancelledError):
            arm.status = "aborted"
            raise
        except UserError as exc:
            arm.status, arm.reason = "failed", str(exc)
        finally:
            arm.ended, arm.phase = self.state.clock(), None
            self.emit("arm", f"{arm.status}" + (f": {arm.reason}" if arm.reason else ""), arm)

    async def _switch(self, engine: str, arm: Arm | None) -> None:
        """Only one engine runs on the GPUs: before ``engine``'s server starts, every other engine's server the
        tune may have running is stopped (and seen gone from the host)."""
        from mtptui.engines.registry import engine as engine_of

        others = [name for name in self.plan.engines if name != engine]
        if self.running == engine or not others:
            return
        for other in others:
            label = engine_of(other).label
            self.emit("switch", f"switching to {engine_of(engine).label}: stopping the {label} server", arm)
            self.emit("phase", f"stopping {label}", arm)
            stopped = await stop_engine(self.on(other))
            if stopped:
                self.emit("switch", stopped, arm)
        self.running = None

    async def _restart(self, profile: str, arm: Arm | None, engine: str) -> bool:
        """Restart ``engine``'s server with ``profile``; False when the engine on the host refuses it (the arm is
        refused)."""
        from mtptui.engines.registry import engine as engine_of
        from mtptui.ops.restart.plan import plan_restart
        from mtptui.ops.restart.run import Restarter

        self.emit("phase", f"restarting with {profile}", arm)
        session = self.on(engine)
        plan = await plan_restart(session, profile, drain=self.plan.drain)
        if plan.blocking and arm is not None:
            label = engine_of(engine).label
            arm.status, arm.reason = "refused", f"{label} on the host would refuse it: {plan.blocking[0]}"
            return False
        steps: list[str] = []

        def on_event(event: RestartEvent) -> None:
            steps.append(event.step)
            self._restart_event(event, arm)

        self.running = None  # until the restart says what runs
        result = await Restarter(session, plan, timeout_s=self.restart_timeout_s, held_lock=self.locks.get(engine),
                                 on_event=on_event).run()
        self.state.restart_s.append(result.elapsed_s)
        self.state.restarts.append({"profile": profile, "arm": arm.name if arm else None, "ok": result.ok,
                                    "steps": steps, "gateway": result.gateway, "engine": engine})
        if not result.ok:
            raise ArmFailed(result.summary())
        self.arm_pid, self.running = result.pid, engine
        return True

    async def _same_server(self, arm: Arm, concurrency: int) -> None:
        """Before a measurement: the server is still the one the arm's restart started."""
        info = await self.on(arm.engine).manager.server_process()
        now = info.pid if info is not None else None
        if self.arm_pid is not None and now != self.arm_pid:
            what = f"pid {now} runs now" if now else "no server runs now"
            raise ArmFailed(f"the server was replaced before c={concurrency} was measured (the arm started pid "
                            f"{self.arm_pid}; {what}): not measured")

    async def _check_launch(self, arm: Arm) -> None:
        self.emit("phase", "checking the running launch", arm)
        mismatch = await launch_mismatch(self.on(arm.engine), arm.profile)
        if mismatch:
            raise ArmFailed(mismatch)

    async def _bench(self, arm: Arm, concurrency: int, warmup: int) -> None:
        from mtptui.ops.bench_run import BenchRequest, bench_config, run_bench, target_of_session

        workload = self.plan.workload
        total = workload.requests_at(concurrency)
        await self._same_server(arm, concurrency)
        self.emit("phase", f"c={concurrency}: warming up", arm)
        request = BenchRequest(workload.prompts, concurrency, total, workload.max_tokens, warmup)
        counter = _Progress(self, arm, concurrency, total)
        link = _LinkWatch(self.session.transport)
        outcome = await run_bench(target_of_session(self.on(arm.engine)), bench_config(request), counter,
                                  history_path=self.history_path)
        run, summary = outcome.run, outcome.run["summary"]
        self.state.rig = run["fingerprint"].get("rig")
        arm.engine_version = run["fingerprint"].get("server_version") or arm.engine_version
        arm.runs.append(run)
        arm.results.append(_measured(concurrency, run, warmup))
        self.emit("measured", f"c={concurrency}: {_tok_s_text(summary)}", arm)
        if summary.get("requests_failed"):
            first = next((r.get("error") for r in run.get("requests", []) if not r.get("ok")), None)
            if link.dropped():
                raise ConnectionLost(f"it dropped while {arm.label} was measured at c={concurrency} ({first})")
            raise ArmFailed(f"{summary['requests_failed']} of {total} requests failed at c={concurrency}: {first}")

    async def _canary(self, arm: Arm) -> None:
        self.emit("phase", "greedy canary", arm)
        outputs = await run_canary(await self.on(arm.engine).api_url(), self.plan.workload.canary_tokens)
        arm.canary, arm.canary_detail = judge_canary(outputs, self.references.get(arm.engine))
        if arm.engine not in self.references and arm.canary == "pass":
            self.references[arm.engine] = outputs
            self.state.canary_references[arm.engine] = arm.name
            if len(self.plan.engines) > 1:
                arm.canary_detail = f"the reference of the {arm.engine} arms (outputs of another engine are not " \
                                    f"comparable)"
        self.emit("canary", f"canary {arm.canary}" + (f": {arm.canary_detail}" if arm.canary_detail else ""), arm)

    # The end ----------------------------------------------------------------------------------------------

    async def _keep(self, keep: str) -> None:
        """Restart with the best arm (keep = best, when there is one) or the original, on its engine (the other
        engines' servers stopped first); say how it went, as read from the host."""
        run, best = self.state, self.state.verdict.best if self.state.verdict else None
        name, kept, engine = (best.name, "best", best.engine) if keep == "best" and best is not None else \
            (self.plan.original.name, "original", self.plan.original.engine)
        run.state, run.current = "restoring", None
        try:
            self.running = None  # after an abort what runs is not known: every other engine is stopped
            await self._switch(engine, None)
            await self._restart(name, None, engine)
            mismatch = await launch_mismatch(self.on(engine), self.plan.host.profiles[name])
            if mismatch:
                raise ArmFailed(mismatch)
        except (ArmFailed, UserError) as exc:
            run.restore = f"restarting with {name} failed: {exc}"
            return
        run.kept, run.restore = kept, f"{self.plan.host.name} runs {name} again" if kept == "original" else \
            f"{self.plan.host.name} keeps the best arm, {name}"

    def _ending(self) -> str:
        run = self.state
        head = f"tune aborted ({run.aborted})" if run.aborted else "tune finished"
        return f"{head}; {run.restore}"


async def _shielded(work: Coroutine[Any, Any, None], on_cancel: Callable[[], None]) -> None:
    """Run ``work`` to its end even when the task is cancelled meanwhile (a second Ctrl+C, SIGTERM, SIGHUP)."""
    task = asyncio.ensure_future(work)
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            on_cancel()
    task.result()


class _LinkWatch:
    """Did the connection to the host drop since this was made? (Requests that fail because the host's server
    crashed fail the arm; requests that fail because the SSH connection dropped abort the tune.)"""

    def __init__(self, transport: Transport) -> None:
        self.transport, self.opened = transport, getattr(transport, "connections", 0)

    def dropped(self) -> bool:
        return bool(getattr(self.transport, "closed", False)) or \
            getattr(self.transport, "connections", 0) != self.opened


class _Progress:
    """The bench's events as the tune's phase: warm-up, then measured requests done out of the total."""

    def __init__(self, tuner: Tuner, arm: Arm, concurrency: int, total: int) -> None:
        self.tuner, self.arm, self.concurrency, self.total, self.done = tuner, arm, concurrency, total, 0

    def __call__(self, event: BenchEvent) -> None:
        from mtptui.bench.events import Notice, RequestDone

        if isinstance(event, RequestDone) and not event.warmup:
            self.done += 1
            self.tuner.emit("phase", f"c={self.concurrency}: {self.done}/{self.total} requests", self.arm, minor=True)
        elif isinstance(event, Notice):
            self.tuner.emit("notice", event.message, self.arm)


def _median(summary: dict[str, Any], key: str) -> float | None:
    value = (summary.get(key) or {}).get("median")
    return round(value, 2) if isinstance(value, (int, float)) else None


def _rounded(value: object) -> float | None:
    return round(value, 3) if isinstance(value, (int, float)) else None


def _measured(concurrency: int, run: dict[str, Any], warmup: int = 0) -> Measured:
    s = run["summary"]
    return Measured(concurrency, _rounded(s.get("output_tok_s")), _rounded(s.get("request_tok_s")),
                    _rounded(s.get("accept_len")), _median(s, "ttft_ms"), _median(s, "tpot_ms"),
                    s.get("accept_len_source"), run.get("id"), _median(s, "itl_ms"), warmup)


def _tok_s_text(summary: dict[str, Any]) -> str:
    tok_s, accept = summary.get("output_tok_s"), summary.get("accept_len")
    text = f"{tok_s:.1f} tok/s" if isinstance(tok_s, (int, float)) else "no tok/s"
    return text + (f", accept length {accept:.2f}" if isinstance(accept, (int, float)) else "")
