"""The simulated scheduler: a waiting queue, up to --max-running-requests decoding together, batched steps.

New requests are prefilled between decode steps (prefill first, as SGLang's scheduler does); each decode
step takes the decode model's time for the current batch size and gives every running request its accepted
tokens. Steps are paced by absolute deadlines on the monotonic clock, so sleeping never drifts the token
rate, and nothing here depends on ``--speed``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque

from mtptui.sim.batchstats import BatchStats, PoolUse
from mtptui.sim.boot import Boot
from mtptui.sim.decode import prefill_seconds
from mtptui.sim.logfmt import LogWriter
from mtptui.sim.metrics import SimMetrics
from mtptui.sim.request import Request

CATCH_UP_S = 0.25  # a deadline further behind than this restarts from now (after a stall)
TRUTH_KEPT = 2000
IDLE_METRICS_S = 30.0  # SGLang republishes its gauges this often while idle (_maybe_log_idle_metrics)


class Engine:
    """Owns the queue and the running batch; ``run()`` is the scheduler loop."""

    def __init__(self, boot: Boot, log: LogWriter, rng: random.Random, metrics: SimMetrics | None = None) -> None:
        self.boot, self.rng, self.metrics = boot, rng, metrics
        self.stats = BatchStats(boot, log, metrics)
        self.waiting: deque[Request] = deque()
        self.running: list[Request] = []
        self.finished: deque[Request] = deque(maxlen=TRUTH_KEPT)
        self.seen_prompts: set[str] = set()
        self.cached_states = 0
        self.decode_steps = 0
        self.last_output = 0.0  # time.monotonic() of the last output handed to any request (what /health waits for)
        self._wake = asyncio.Event()
        self._deadline: float | None = None
        self._stopped = False

    @property
    def max_running(self) -> int:
        return self.boot.max_running

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

    def pool_use(self) -> PoolUse:
        tokens = sum(r.total_tokens for r in self.running)
        cap = self.boot.memory.mamba.size if self.boot.memory.mamba else 0
        mamba = min(cap, len(self.running) + self.cached_states) if cap else 0
        return PoolUse(tokens, len(self.running), len(self.waiting), mamba)

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
        """Wait for a request; every IDLE_METRICS_S without one, publish the idle gauges."""
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), IDLE_METRICS_S)
        except asyncio.TimeoutError:
            self.stats.idle(self.pool_use(), IDLE_METRICS_S)
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
        budget = self.boot.chunked_prefill if self.boot.chunked_prefill > 0 else self.boot.settings.max_prefill_tokens
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
            if self.metrics:
                self.metrics.observe("queue_time_seconds", start - request.arrival)
        new_tokens = sum(r.prompt_tokens - r.cached_tokens for r in batch)
        chunk = self.boot.chunked_prefill if self.boot.chunked_prefill > 0 else max(new_tokens, 1)  # -1: no chunks
        for done in range(0, max(new_tokens, 1), chunk):
            size = min(chunk, new_tokens - done)
            self.stats.prefill(len(batch), size, sum(r.cached_tokens for r in batch) if done == 0 else 0,
                               self.pool_use())
            now = await self._sleep(prefill_seconds(size, len(batch)))
        for request in batch:
            self._first_token(request, now)

    def _first_token(self, request: Request, now: float) -> None:
        request.take(1)
        request.flush(now)
        self.last_output = now
        if self.metrics and not request.health:
            self.metrics.observe("time_to_first_token_seconds", now - request.arrival, streaming=request.streaming)
        if request.finished:
            self._retire(request)
        else:
            self.running.append(request)

    async def _decode_step(self) -> None:
        batch = list(self.running)
        seconds = self.boot.decode.sample_step(len(batch), self.decode_steps, self.rng)
        now = await self._sleep(seconds)
        self.decode_steps += 1
        self.last_output = now
        for request in batch:
            if request.finished:  # aborted while the step ran
                continue
            self._advance(request, now)
        self.stats.end_step(self.pool_use())
        for request in batch:
            if request.finished and request in self.running:
                self._retire(request)

    def _advance(self, request: Request, now: float) -> None:
        decode = self.boot.decode
        correct = self._correct(request) if decode.speculative else 0
        previous = request.last_token_at
        made = request.take(correct + 1)
        if decode.speculative:
            request.record_verify(min(correct, max(made - 1, 0)))
        self.stats.step(made, min(correct, max(made - 1, 0)))
        request.flush(now, self.boot.settings.stream_interval)
        if self.metrics and previous is not None and made and not request.health:
            request.itl.append((now, (now - previous) / made, made))
            for _ in range(made):
                self.metrics.observe("inter_token_latency_seconds", (now - previous) / made)

    def _correct(self, request: Request) -> int:
        """Correct drafts of this step, from the request's own draws (mtptui.sim.draws)."""
        draw = request.draws.next() if request.draws is not None else self.rng.random()
        return self.boot.decode.correct(draw)

    def _retire(self, request: Request) -> None:
        if request in self.running:
            self.running.remove(request)
        if not self.boot.settings.disable_radix_cache:
            self.cached_states += 1
        if not request.health:
            self.finished.append(request)
            if self.metrics:
                self._count_finished(request)

    def _count_finished(self, request: Request) -> None:
        """SGLang's ``observe_one_finished_request``: token and request counters move only here."""
        metrics, streaming = self.metrics, request.streaming
        metrics.inc("prompt_tokens", request.prompt_tokens, streaming=streaming)
        metrics.inc("generation_tokens", request.completion_tokens, streaming=streaming)
        metrics.inc("cached_tokens", request.cached_tokens)
        metrics.inc("spec_verify_calls", request.verify_ct)
        metrics.inc("num_requests", streaming=streaming)
        if request.finish_reason == "abort":
            metrics.inc("num_aborted_requests")
        metrics.observe("e2e_request_latency_seconds", time.monotonic() - request.arrival, streaming=streaming)

    def truth(self, itl: bool = False) -> list[dict]:
        """Per request, finished then running then waiting: what the server really did."""
        live = [r for r in [*self.running, *self.waiting] if not r.health]
        return [r.truth(itl) for r in [*self.finished, *live]]
