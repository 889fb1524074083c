"""The gateway client: list its workers, read one, take one out of the rotation and put it back.

Which router generation answers is found on the first call (``mtptui.gateway.generation``); an addition or a
removal through anything but SMG is refused with one sentence. ``add`` and ``remove`` return only once the gateway
says the worker is ``ready``, or gone, or their own time is up (a ``GatewayError`` naming the last status seen);
each poll is a call of its own, with its own deadline.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import quote

from mtptui.gateway.generation import Generation, from_worker_list, has_url_list, refusal
from mtptui.gateway.http import DEADLINE_S, Answer, GatewayError, GatewayHttp
from mtptui.gateway.match import same_url
from mtptui.gateway.workers import Worker, parse_urls, parse_worker, parse_workers

POLL_S = 0.5
ADD_TIMEOUT_S = 60.0
REMOVE_TIMEOUT_S = 60.0
TOKEN_HINT = "the bearer token named under [gateway] in the host file"

StatusSeen = Callable[[Worker | None], None]


@dataclass(frozen=True)
class Health:
    """The gateway's own health: ``/health`` answered 200, and what ``/readiness`` says (SMG)."""

    ok: bool
    readiness: str | None = None
    healthy_workers: int | None = None
    total_workers: int | None = None


class Gateway:
    """One gateway; use as ``async with``. ``url`` is where it is reached from here (a tunnel's loopback port
    for a gateway seen from a GPU host), ``label`` how sentences name it (the URL as the host file has it)."""

    def __init__(self, url: str, *, token: str | None = None, label: str | None = None,
                 deadline_s: float = DEADLINE_S, poll_s: float = POLL_S, token_hint: str = TOKEN_HINT) -> None:
        self.http = GatewayHttp(url, token=token, label=label, deadline_s=deadline_s)
        self.poll_s, self.token_hint = poll_s, token_hint
        self._generation: Generation | None = None
        self._first_list: Any = None  # the /workers answer generation() read, handed to the first workers()

    @property
    def label(self) -> str:
        return self.http.label

    async def __aenter__(self) -> "Gateway":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.close()

    async def generation(self) -> Generation:
        """The router generation that answers (asked once)."""
        if self._generation is None:
            self._generation = await self._detect()
        return self._generation

    async def _detect(self) -> Generation:
        answer = await self.http.call("GET", "/workers", "the worker list")
        if answer.status == 200:
            parse_workers(answer.body, self.label)  # the shape is checked before anything is concluded from it
            self._first_list = answer.body
            return from_worker_list(answer.body) or await self._old_or_smg()
        if answer.status == 404 and await self._lists_urls():
            return "router-0.1"
        raise self._failure(answer, "the worker list")

    async def _lists_urls(self) -> bool:
        answer = await self.http.call("GET", "/list_workers", "the worker list (/list_workers)")
        self._check_credentials(answer)
        return answer.status == 200 and has_url_list(answer.body)

    async def _old_or_smg(self) -> Generation:
        """An empty /workers list: router 0.2.x still has the old /list_workers, SMG does not."""
        return "router-0.2" if await self._lists_urls() else "smg"

    async def workers(self) -> list[Worker]:
        """Every worker the gateway lists, in its order."""
        generation = await self.generation()
        if generation == "router-0.1":
            answer = await self._get("/list_workers", "the worker list (/list_workers)")
            return parse_urls(answer.body, self.label)
        body, self._first_list = self._first_list, None
        if body is None:
            body = (await self._get("/workers", "the worker list")).body
        return parse_workers(body, self.label)

    async def worker(self, worker_id: str) -> Worker | None:
        """One worker by its id (SMG), None when the gateway no longer has it."""
        answer = await self.http.call("GET", f"/workers/{quote(worker_id, safe='')}", f"worker {worker_id}")
        if answer.status == 404:
            return None
        self._expect(answer, (200,), f"worker {worker_id}")
        return parse_worker(answer.body, self.label)

    async def health(self) -> Health:
        """``/health`` and, where it exists, ``/readiness`` (SMG: ``ready`` or ``draining``, workers healthy)."""
        health = await self.http.call("GET", "/health", "/health")
        self._check_credentials(health)
        ready = await self.http.call("GET", "/readiness", "/readiness")
        body = ready.body if isinstance(ready.body, dict) else {}
        status = body.get("status")
        return Health(health.status == 200, status if isinstance(status, str) else None,
                      _int(body.get("healthy_workers")), _int(body.get("total_workers")))

    async def add(self, url: str, *, timeout_s: float = ADD_TIMEOUT_S, seen: StatusSeen | None = None) -> Worker:
        """Register ``url`` and wait until the gateway says it is ready; a worker it already has is waited for."""
        await self._refuse_unless_smg("add a worker")
        answer = await self.http.call("POST", "/workers", f"the addition of {url}", payload={"url": url})
        if answer.status == 409:
            worker_id = await self._id_of(url)
        else:
            self._expect(answer, (200, 201, 202), f"the addition of {url}")
            worker_id = _new_id(answer)
        if worker_id is None:
            raise GatewayError(f"the gateway at {self.label} accepted {url} without saying its worker id")
        return await self._until_ready(worker_id, url, timeout_s, seen)

    async def remove(self, worker: Worker, *, timeout_s: float = REMOVE_TIMEOUT_S,
                     seen: StatusSeen | None = None) -> None:
        """Take ``worker`` out of the rotation and wait until the gateway no longer lists it."""
        await self._refuse_unless_smg("remove a worker")
        if worker.id is None:
            raise GatewayError(f"the gateway at {self.label} gave {worker.url} no worker id to remove it by")
        path = f"/workers/{quote(worker.id, safe='')}"
        answer = await self.http.call("DELETE", path, f"the removal of {worker.url}")
        if answer.status != 404:
            self._expect(answer, (200, 202, 204), f"the removal of {worker.url}")
            await self._until_gone(worker, timeout_s, seen)

    async def _until_ready(self, worker_id: str, url: str, timeout_s: float, seen: StatusSeen | None) -> Worker:
        deadline, last = time.monotonic() + timeout_s, None
        while True:
            last = await self.worker(worker_id)
            if seen is not None:
                seen(last)
            if last is not None and last.ready:
                return last
            if last is not None and last.status == "failed":
                raise GatewayError(f"the gateway at {self.label} could not add {url}: its registration failed")
            if time.monotonic() >= deadline:
                status = last.status if last else "not listed"
                raise GatewayError(f"{url} did not become ready in the gateway at {self.label} within "
                                   f"{timeout_s:g} s (last status: {status})")
            await asyncio.sleep(self.poll_s)

    async def _until_gone(self, worker: Worker, timeout_s: float, seen: StatusSeen | None) -> None:
        assert worker.id is not None
        deadline = time.monotonic() + timeout_s
        while (now := await self.worker(worker.id)) is not None:
            if seen is not None:
                seen(now)
            if time.monotonic() >= deadline:
                raise GatewayError(f"the gateway at {self.label} still lists {worker.url} {timeout_s:g} s after "
                                   f"its removal (status: {now.status or 'unknown'})")
            await asyncio.sleep(self.poll_s)
        if seen is not None:
            seen(None)

    async def _id_of(self, url: str) -> str | None:
        return next((w.id for w in await self.workers() if same_url(w.url, url)), None)

    async def _refuse_unless_smg(self, action: str) -> None:
        generation = await self.generation()
        if generation != "smg":
            raise GatewayError(refusal(generation, self.label, action))

    async def _get(self, path: str, what: str) -> Answer:
        answer = await self.http.call("GET", path, what)
        self._expect(answer, (200,), what)
        return answer

    def _expect(self, answer: Answer, statuses: tuple[int, ...], what: str) -> None:
        if answer.status not in statuses:
            raise self._failure(answer, what)

    def _check_credentials(self, answer: Answer) -> None:
        if answer.status in (401, 403):
            raise self._failure(answer, "")

    def _failure(self, answer: Answer, what: str) -> GatewayError:
        if answer.status in (401, 403):
            return GatewayError(f"the gateway at {self.label} refused the credentials (HTTP {answer.status}: "
                                f"{answer.message()}): check {self.token_hint}")
        if answer.status == 404:
            return GatewayError(f"the gateway at {self.label} has no such route for {what} (HTTP 404): "
                                f"is it an SGLang gateway (SMG or sglang-router)?")
        return GatewayError(f"the gateway at {self.label} refused {what} (HTTP {answer.status}: {answer.message()})")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _new_id(answer: Answer) -> str | None:
    """The id of a queued addition: ``worker_id`` in the body, else the last part of ``location``."""
    body = answer.body if isinstance(answer.body, dict) else {}
    worker_id = body.get("worker_id")
    if isinstance(worker_id, str) and worker_id:
        return worker_id
    location = answer.location or (body.get("location") if isinstance(body.get("location"), str) else None)
    return location.rstrip("/").rsplit("/", 1)[-1] if location else None
