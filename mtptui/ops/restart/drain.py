"""The gateway steps of a restart: take the worker out of the gateway, wait until it holds no request, and once
the server is back put it in again, wait until the gateway says ``ready``, and send one canary through it.

    drain, notes = await plan_drain(session, DrainOptions(timeout_s=60))   # read only; None without a gateway
    steps = GatewayDrain(session, drain, emit)
    failed = await steps.take_out()          # None: out of the gateway and idle; else why not (it is put back)
    ...                                      # the manager's stop and start
    failed = await steps.put_back(canary=True)
    # it failed after the worker was added back: out again and idle before the rollback stops the server
    failed = await steps.take_out(again=True)   # None: out and idle (or drained as far as the timeout allowed)
    ...                                      # the rollback
    failed = await steps.put_back(canary=False)

They apply when the host file names a gateway and another worker of the same model is ``ready`` there; as the
last ready worker there is nowhere for its traffic to go, so the plan says the restart drops it and adds no
step. A gateway that cannot be read, that does not list this server, or an older router generation that mtptui
does not drive, stops the plan before anything changes, unless the operator asked for no gateway steps
(``DrainOptions(use_gateway=False)``: ``mtptui restart --no-gateway``). The in-flight count is the server's own
(running and waiting, where the host's engine keeps it: mtptui.engines.registry.held_count), read through the
host's session: the gateway's removal waits only a fixed settle time, not for the requests it sent.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from mtptui.errors import UserError
from mtptui.gateway.http import GatewayError

if TYPE_CHECKING:
    import httpx

    from mtptui.gateway.client import Gateway
    from mtptui.gateway.workers import Worker
    from mtptui.ops.connect import HostSession
    from mtptui.ops.progress import StepEmit

DRAIN_TIMEOUT_S = 60.0
POLL_S = 0.25  # how often the drain asks the server what it holds (a GET through the SSH tunnel)
ADD_TIMEOUT_S = 60.0
CANARY_TRIES_PER_WORKER = 6  # canaries until one reaches this worker: the gateway's policy picks who serves each
NO_GATEWAY = "--no-gateway restarts without the gateway steps"

DrainDecision = Callable[[str], Awaitable[bool]]  # a worker that did not drain in time: go on (True) or abort


@dataclass(frozen=True)
class DrainOptions:
    """What the operator asked: the gateway steps or not, and how long the worker may take to drain."""

    use_gateway: bool = True
    timeout_s: float = DRAIN_TIMEOUT_S


@dataclass
class DrainPlan:
    """The gateway steps of one restart (``last``: this is the model's last ready worker, so there are none)."""

    gateway: str
    worker_url: str
    worker_id: str | None
    model: str | None
    peers: list[str] = field(default_factory=list)
    timeout_s: float = DRAIN_TIMEOUT_S
    last: bool = False
    held_source: str = "its own count: running + waiting"  # where the server counts its requests (its engine's)

    @property
    def active(self) -> bool:
        return not self.last

    def before(self) -> list[str]:
        """The steps before the stop, as the plan lists them."""
        if self.last:
            return []
        return [f"remove {self.worker_url} from the gateway at {self.gateway} (DELETE /workers/{self.worker_id})",
                f"wait until the server holds no request ({self.held_source}), at most "
                f"{self.timeout_s:g} s (--drain-timeout); {', '.join(self.peers)} take its traffic meanwhile"]

    def after(self) -> list[str]:
        if self.last:
            return []
        return [f"add {self.worker_url} back (POST /workers) and wait until the gateway says ready",
                f"one canary request through the gateway at {self.gateway}",
                "on any failure the worker is added back to the gateway, whatever else is rolled back"]

    def note(self) -> str | None:
        if not self.last:
            return None
        return (f"{self.worker_url} is the last ready worker of its model in the gateway at {self.gateway}: the "
                f"restart drops the traffic it serves (no gateway steps)")

    def to_json(self) -> dict[str, Any]:
        return {"gateway": self.gateway, "worker_url": self.worker_url, "worker_id": self.worker_id,
                "model": self.model, "ready_peers": list(self.peers), "drain_timeout_s": self.timeout_s,
                "last_ready_worker": self.last, "before_stop": self.before(), "after_ready": self.after()}


def _stopped(reason: str) -> UserError:
    return UserError(f"{reason}; the restart stops before changing anything ({NO_GATEWAY})")


async def plan_drain(session: HostSession, options: DrainOptions) -> tuple[DrainPlan | None, list[str]]:
    """The gateway steps for ``session``'s host, and the plan's notes about them; None without a gateway."""
    config = session.host.gateway
    if config is None:
        return None, []
    if not options.use_gateway:
        return None, [f"the gateway steps are left out (--no-gateway): the gateway at {config.url} keeps sending "
                      f"this server requests while it restarts"]
    from mtptui.gateway.drain import ready_peers
    from mtptui.gateway.generation import refusal
    from mtptui.ops.gateway import open_gateway, this_worker

    try:
        async with await open_gateway(session) as gateway:
            generation = await gateway.generation()
            if generation != "smg":
                raise GatewayError(refusal(generation, gateway.label, "drain a worker"))
            workers = await gateway.workers()
            mine = await this_worker(gateway, session.host, workers)
    except GatewayError as exc:
        raise _stopped(str(exc)) from None
    from mtptui.engines.registry import held_count

    peers = ready_peers(workers, mine)
    plan = DrainPlan(config.url, mine.url, mine.id, mine.model_id, [w.url for w in peers], options.timeout_s,
                     last=not peers, held_source=held_count(session.host.engine).source)
    note = plan.note()
    return plan, [note] if note else []


class GatewayDrain:
    """Runs one DrainPlan's steps, reporting each through ``emit``; ``decide`` chooses when the worker does not
    drain in time (None: the restart stops there)."""

    def __init__(self, session: HostSession, plan: DrainPlan, emit: StepEmit,
                 decide: DrainDecision | None = None) -> None:
        self.session, self.plan, self.emit, self.decide = session, plan, emit, decide
        self.out = False  # the worker was (or may have been) taken out, and is not back yet
        self.added = False  # it was asked back into the gateway at least once (so it may be listed there)
        self.worker_id = plan.worker_id  # the gateway's id of it (a worker added back has a new one)
        self._status: str | None = None  # the last status of the worker reported (one event per change)
        self._began = time.monotonic()  # when the removal was asked: the drain time counts from there
        self.report: dict[str, Any] = {"removed": False, "drain_s": None, "in_flight_at_stop": None,
                                       "re_added": False, "canary": None, "canary_served_by": None,
                                       "problem": None, "removed_again": None, "again_problem": None,
                                       "in_flight_at_rollback": None, "out": None,
                                       "worker": plan.worker_url}

    async def _gateway(self) -> Gateway:
        from mtptui.ops.gateway import open_gateway

        return await open_gateway(self.session)

    async def take_out(self, again: bool = False) -> str | None:
        """Remove the worker and wait until the server holds no request; why not, else None. ``again``: before
        the rollback of a launch that was added back (its canary, or its wait for ready there, failed); a worker
        the gateway no longer lists counts as out, and one that does not drain in time is rolled back anyway."""
        plan, self._began = self.plan, time.monotonic()
        self._status = None
        self.emit("gateway_remove", f"removing {plan.worker_url} from the gateway at {plan.gateway}"
                                    f"{' again before the rollback' if again else ''}", {})
        try:
            async with await self._gateway() as gateway:
                self.out = self.out or again  # taken out again or not, it is asked back after the rollback
                worker = await self._listed(gateway, again)
                self.out = True
                if worker is not None:
                    await gateway.remove(worker, seen=self._seen_removal)
        except UserError as exc:  # the gateway, or the session its tunnel goes through
            return self._problem(str(exc), again)
        self.report["removed_again" if again else "removed"] = True
        self.emit("gateway_remove", f"{plan.worker_url} is out of the gateway{' again' if again else ''}",
                  {"status": "gone"})
        return await self._wait_idle(again)

    async def _listed(self, gateway: Gateway, again: bool = False) -> Worker | None:
        """The worker as the gateway lists it; taken out again, found by its URL (None: not listed)."""
        if again:
            from mtptui.gateway.match import same_url

            return next((w for w in await gateway.workers() if same_url(w.url, self.plan.worker_url)), None)
        worker = await gateway.worker(self.worker_id) if self.worker_id else None
        if worker is None:
            raise GatewayError(f"the gateway at {self.plan.gateway} no longer lists {self.plan.worker_url}")
        return worker

    def _seen_removal(self, worker: Worker | None) -> None:
        if worker is not None and worker.status and worker.status != self._status:
            self._status = worker.status
            self.emit("gateway_remove", f"the gateway shows {worker.url} {worker.status}", {"status": worker.status})

    async def _wait_idle(self, again: bool = False) -> str | None:
        import httpx

        self.emit("draining", f"waiting until the server holds no request (at most {self.plan.timeout_s:g} s)", {})
        async with httpx.AsyncClient(timeout=10, trust_env=False) as client:  # one for every poll: building one
            return await self._poll_idle(client, again)  # (its SSL context) cost more than the poll itself

    async def _poll_idle(self, client: httpx.AsyncClient, again: bool) -> str | None:
        timeout_s, started, last = self.plan.timeout_s, time.monotonic(), None
        while True:
            try:
                held = await self._held(client)
            except UserError as exc:
                return self._problem(f"cannot read the server's requests in flight: {exc}", again)
            elapsed, drain_s = time.monotonic() - started, round(time.monotonic() - self._began, 2)
            if held == 0:
                self.report.update({"in_flight_at_rollback": 0} if again else {"drain_s": drain_s,
                                                                                "in_flight_at_stop": 0})
                self.emit("draining", f"drained: no request in flight {drain_s:.1f} s after the removal was asked",
                          {"in_flight": 0, "drain_s": drain_s})
                return None
            if held != last:
                self.emit("draining", f"{held} requests in flight", {"in_flight": held})
                last = held
            if elapsed >= timeout_s and again:
                self.report["in_flight_at_rollback"] = held
                self.emit("warning", f"{self.plan.worker_url} still held {held} requests {timeout_s:g} s after its "
                                     f"removal from the gateway: rolling back anyway, so those requests are cut",
                          {"in_flight": held})
                return None
            if elapsed >= timeout_s:
                return await self._not_drained(held, drain_s)
            await asyncio.sleep(POLL_S)

    async def _not_drained(self, held: int, drain_s: float) -> str | None:
        reason = (f"{self.plan.worker_url} still held {held} requests {self.plan.timeout_s:g} s after its removal "
                  f"from the gateway (--drain-timeout chooses how long to wait)")
        if self.decide is not None and await self.decide(reason):
            self.report.update(drain_s=drain_s, in_flight_at_stop=held)
            self.emit("warning", f"{reason}: going on as asked, so those requests are cut", {"in_flight": held})
            return None
        return self._problem(reason)

    async def _held(self, client: httpx.AsyncClient) -> int:
        """Requests the server holds by its own count (its engine says where), through the session."""
        import httpx

        from mtptui.engines.registry import held_count

        url = (await self.session.api_url()).rstrip("/")

        async def get_text(path: str) -> tuple[int, str]:
            try:
                answer = await client.get(url + path)
            except httpx.HTTPError as exc:
                raise UserError(f"{url}{path} did not answer ({type(exc).__name__})") from None
            return answer.status_code, answer.text

        return await held_count(self.session.host.engine).read(get_text, url)

    async def put_back(self, canary: bool) -> str | None:
        """Add the worker back (whatever happened before), wait until ready, then the canary; why not, else None."""
        if not self.out:
            return None
        plan, self.added, self._status = self.plan, True, None
        self.emit("gateway_add", f"adding {plan.worker_url} back to the gateway at {plan.gateway}", {})
        try:
            async with await self._gateway() as gateway:
                added = await gateway.add(plan.worker_url, timeout_s=ADD_TIMEOUT_S, seen=self._seen_addition)
                self.worker_id = added.id or self.worker_id
                self.out, self.report["re_added"], self.report["out"] = False, True, None
                self.emit("gateway_ready", f"{plan.worker_url} is ready in the gateway again", {"status": "ready"})
                if canary:
                    await self._canary(gateway)
        except UserError as exc:  # the gateway, or the session its tunnel goes through
            return self._problem(str(exc))
        return None

    def _seen_addition(self, worker: Worker | None) -> None:
        status = (worker.status or "status unknown") if worker is not None else "not listed yet"
        if status == self._status:
            return
        self._status = status
        self.emit("gateway_ready", f"the gateway shows {self.plan.worker_url} {status}", {"status": status})

    async def _canary(self, gateway: Gateway) -> None:
        from mtptui.gateway.drain import canary

        from mtptui.gateway.match import same_url

        plan, tries = self.plan, CANARY_TRIES_PER_WORKER * (len(self.plan.peers) + 1)
        self.emit("canary", f"one canary request through the gateway at {plan.gateway}", {})
        self.report["canary"] = False
        served = await canary(gateway, plan.model, plan.worker_url, tries)
        self.report.update(canary=True, canary_served_by=served)
        if served is None or same_url(served, plan.worker_url):
            self.emit("canary", f"the canary request through the gateway was answered"
                                f"{f' by {served}' if served else ''}", {"ok": True, "served_by": served})
        else:
            self.emit("canary", f"the canary requests through the gateway were answered, but by other workers: it "
                                f"routed none of {tries} to {plan.worker_url}", {"ok": True, "served_by": served})

    def left_out(self, reason: str) -> None:
        """The worker stays out of the gateway (it could not be added back): the report says so, and why."""
        self.report["out"] = reason

    def _problem(self, reason: str, again: bool = False) -> str:
        self.report["again_problem" if again else "problem"] = reason
        return reason
