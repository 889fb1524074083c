"""The simulated scheduler every engine personality runs: a waiting queue, a running batch, batched steps.

Engine-neutral: new requests are prefilled between decode steps (prefill first); each decode step takes the
decode model's time for the current batch size and gives every running request its accepted tokens. Steps are
paced by absolute deadlines on the monotonic clock, so sleeping never drifts the token rate, and nothing here
depends on ``--speed``. What an engine counts and logs about its steps (log lines, metric families, caches) is
its personality's: the ``_on_*`` hooks, which do nothing here.

A personality sets the launch's sizes as attributes: ``max_running`` (requests decoding together),
``prefill_budget`` (new tokens one prefill batch admits beyond its first request), ``prefill_chunk`` (tokens per
prefill forward; 0 or less: the whole batch at once), ``decode`` (mtptui.sim.decode, read at every step, so a
personality may switch it while serving) and ``stream_interval``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque

from mtptui.sim.decode import DecodeModel, prefill_seconds
from mtptui.sim.request import Request

# A step late by less than this is caught up (late steps run back to back until on time): the simulated GPU keeps
# its pace while this machine's CPU is busy elsewhere. A deadline further behind restarts from now (the server
# was really away: catching up more would be a burst).
CATCH_UP_S = 1.0
TRUTH_KEPT = 2000
IDLE_WAKE_S = 30.0  # an idle scheduler wakes this often (a personality may publish its idle gauges then)


class Scheduler:
    """Owns the queue and the running batch; ``run()`` is the scheduler loop."""

    max_running: int = 1
    prefill_budget: int = 16384
    prefill_chunk: int = 0
    stream_interval: int = 1
    idle_wake_s: float = IDLE_WAKE_S
    decode: DecodeModel  # read at every step: a personality may switch it while serving (adaptive speculation)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.waiting: deque[Request] = deque()
        self.running: list[Request] = []
        self.finished: deque[Request] = deque(maxlen=TRUTH_KEPT)
        self.seen_prompts: set[str] = set()
        self.decode_steps = 0
        self.last_output = 0.0  # time.monotonic() of the last output handed to any request (what /health waits for)
        self._wake = asyncio.Event()
        self._deadline: float | None = None
        self._stopped = False

    # What a personality counts and logs: no-ops here.
    def _on_idle(self) -> None:
        """Woken after ``idle_wake_s`` without a request."""

    def _on_admit(self, request: Request, start: float) -> None:
        """``request`` leaves the waiting queue at ``start`` (its prefill begins)."""

    def _on_prefill_chunk(self, batch: list[Request], tokens: int, cached: int) -> None:
        """One prefill forward of ``tokens`` new tokens begins (``cached``: prompt tokens served from cache)."""

    def _on_first_token(self, request: Request, now: float) -> None:
        """``request`` got its first token at ``now``."""

    def _on_step_begin(self, batch: list[Request]) -> None:
        """A decode step of ``batch`` begins."""

    def _on_tokens(self, request: Request, made: int, correct: int, now: float, previous: float | None) -> None:
        """One request's share of a decode step: ``made`` tokens, ``correct`` of its drafts accepted."""

    def _on_step_end(self, batch: list[Request], corrects: list[int]) -> None:
        """After a whole decode step (``corrects``: each live request's accepted drafts)."""

    def _on_retire(self, request: Request) -> None:
        """``request`` left the batch (finished or aborted), health probes included."""

    def _on_finished(self, request: Request) -> None:
        """A client's request finished (not a health probe)."""

    def submit(self, request: Request) -> None:
        request.arrival = time.monotonic()
        if self._stopped:
            request.abort(request.arrival)
            return
        self.waiting.append(request)
        self._wake.set()

    def cancel(self, request: Request) -> None:
        """The client went away: drop the request wherever it is."""
        if request in self.waiting:
            self.waiting.remove(request)
        if request in self.running and not request.finished:
            request.abort(time.monotonic())
            self._retire(request)

    def stop(self) -> None:
        """Abort everything (server shutdown) and end the loop."""
        self._stopped = True
        now = time.monotonic()
        for request in [*self.waiting, *self.running]:
            if not request.finished:
                request.abort(now)
        self.waiting.clear()
        self.running.clear()
        self._wake.set()

    async def run(self) -> None:
        while not self._stopped:
            if not self.waiting and not self.running:
                await self._idle()
                continue
            if self.waiting and len(self.running) < self.max_running:
                await self._prefill()
            else:
                await self._decode_step()

    async def _idle(self) -> None:
        """Wait for a request; every ``idle_wake_s`` without one, the idle hook."""
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), self.idle_wake_s)
        except asyncio.TimeoutError:
            self._on_idle()
        self._deadline = None

    async def _sleep(self, seconds: float) -> float:
        """Sleep until the next absolute deadline; returns the time the step ends."""
        now = time.monotonic()
        if self._deadline is None or self._deadline < now - CATCH_UP_S:
            self._deadline = now
        self._deadline += seconds
        await asyncio.sleep(max(0.0, self._deadline - time.monotonic()))
        return time.monotonic()

    def _admit(self) -> list[Request]:
        batch: list[Request] = []
        budget = self.prefill_budget
        while self.waiting and len(self.running) + len(batch) < self.max_running:
            new = self.waiting[0].prompt_tokens - self.waiting[0].cached_tokens
            if batch and new > budget:
                break
            batch.append(self.waiting.popleft())
            budget -= new
        return batch

    async def _prefill(self) -> None:
        batch = self._admit()
        start = time.monotonic()
        for request in batch:
            request.prefill_start = start
            self._on_admit(request, start)
        new_tokens = sum(r.prompt_tokens - r.cached_tokens for r in batch)
        chunk = self.prefill_chunk if self.prefill_chunk > 0 else max(new_tokens, 1)
        now = start
        for done in range(0, max(new_tokens, 1), chunk):
            size = min(chunk, new_tokens - done)
            self._on_prefill_chunk(batch, size, sum(r.cached_tokens for r in batch) if done == 0 else 0)
            now = await self._sleep(prefill_seconds(size, len(batch)))
        for request in batch:
            self._first_token(request, now)

    def _first_token(self, request: Request, now: float) -> None:
        request.take(1)
        request.flush(now)
        self.last_output = now
        self._on_first_token(request, now)
        if request.finished:
            self._retire(request)
        else:
            self.running.append(request)

    async def _decode_step(self) -> None:
        batch = list(self.running)
        self._on_step_begin(batch)
        seconds = self.decode.sample_step(len(batch), self.decode_steps, self.rng)
        now = await self._sleep(seconds)
        self.decode_steps += 1
        self.last_output = now
        corrects = [self._advance(request, now) for request in batch if not request.finished]  # (aborted meanwhile)
        self._on_step_end(batch, corrects)
        for request in batch:
            if request.finished and request in self.running:
                self._retire(request)

    def _advance(self, request: Request, now: float) -> int:
        """One decode step of one request; its accepted drafts."""
        correct = self._correct(request) if self.decode.speculative else 0
        previous = request.last_token_at
        made = request.take(correct + 1)
        correct = min(correct, max(made - 1, 0))
        if self.verifies:
            request.record_verify(correct)
        self._on_tokens(request, made, correct, now, previous)
        request.flush(now, self.stream_interval)
        return correct

    @property
    def verifies(self) -> bool:
        """Whether a step counts as a verify step of the request (the launch speculates)."""
        return self.decode.speculative

    def _correct(self, request: Request) -> int:
        """Correct drafts of this step, from the request's own draws (mtptui.sim.draws)."""
        draw = request.draws.next() if request.draws is not None else self.rng.random()
        return self.decode.correct(draw)

    def _retire(self, request: Request) -> None:
        if request in self.running:
            self.running.remove(request)
        self._on_retire(request)
        if not request.health:
            self.finished.append(request)
            self._on_finished(request)

    def truth(self, itl: bool = False) -> list[dict[str, object]]:
        """Per request, finished then running then waiting: what the server really did."""
        live = [r for r in [*self.running, *self.waiting] if not r.health]
        return [r.truth(itl) for r in [*self.finished, *live]]
