"""SGLang's scheduler in the simulated server: the shared scheduler (mtptui.sim.scheduler) with SGLang's sizes,
its batch log lines and gauges (mtptui.sim.batchstats), its metric families, its mamba state cache and its
adaptive speculation (mtptui.sim.adaptive: switches the decode model between steps).

Sizes: up to --max-running-requests decoding together, prefill batches within --chunked-prefill-size (or
--max-prefill-tokens without chunking), streamed every --stream-interval steps.
"""

from __future__ import annotations

import random
import time

from mtptui.sim.adaptive import AdaptiveRuntime
from mtptui.sim.batchstats import BatchStats, PoolUse
from mtptui.sim.boot import Boot
from mtptui.sim.decode import DecodeModel
from mtptui.sim.logfmt import LogWriter
from mtptui.sim.metrics import SimMetrics
from mtptui.sim.request import Request
from mtptui.sim.scheduler import Scheduler

IDLE_METRICS_S = 30.0  # SGLang republishes its gauges this often while idle (_maybe_log_idle_metrics)


class Engine(Scheduler):
    """SGLang's scheduler: the shared loop, counted and logged as SGLang does."""

    def __init__(self, boot: Boot, log: LogWriter, rng: random.Random, metrics: SimMetrics | None = None) -> None:
        super().__init__(rng)
        self.boot, self.metrics = boot, metrics
        self.stats = BatchStats(boot, log, metrics)
        start = boot.settings.adaptive_start
        self.adaptive = AdaptiveRuntime(boot, log, start) if boot.settings.adaptive and start else None
        self.cached_states = 0
        self.prefill_chunk = boot.chunked_prefill  # -1: no chunks
        self.prefill_budget = boot.chunked_prefill if boot.chunked_prefill > 0 else boot.settings.max_prefill_tokens
        self.stream_interval = boot.settings.stream_interval
        self.max_running = boot.max_running
        self.idle_wake_s = IDLE_METRICS_S

    @property
    def decode(self) -> DecodeModel:  # adaptive speculation replaces the boot's while serving
        return self.boot.decode

    @decode.setter
    def decode(self, model: DecodeModel) -> None:
        self.boot.decode = model

    @property
    def verifies(self) -> bool:  # steps 0 of adaptive speculation still count a verify step
        return self.boot.settings.speculative

    def pool_use(self) -> PoolUse:
        tokens = sum(r.total_tokens for r in self.running)
        cap = self.boot.memory.mamba.size if self.boot.memory.mamba else 0
        mamba = min(cap, len(self.running) + self.cached_states) if cap else 0
        return PoolUse(tokens, len(self.running), len(self.waiting), mamba)

    def _on_idle(self) -> None:
        self.stats.idle(self.pool_use(), IDLE_METRICS_S)

    def _on_admit(self, request: Request, start: float) -> None:
        if self.metrics:
            self.metrics.observe("queue_time_seconds", start - request.arrival)

    def _on_prefill_chunk(self, batch: list[Request], tokens: int, cached: int) -> None:
        self.stats.prefill(len(batch), tokens, cached, self.pool_use())

    def _on_first_token(self, request: Request, now: float) -> None:
        if self.metrics and not request.health:
            self.metrics.observe("time_to_first_token_seconds", now - request.arrival, streaming=request.streaming)

    def _on_step_begin(self, batch: list[Request]) -> None:
        if self.adaptive is not None:
            self.adaptive.before_step(len(batch))

    def _on_tokens(self, request: Request, made: int, correct: int, now: float, previous: float | None) -> None:
        self.stats.step(made, correct, self.decode.drafts_per_round)
        if self.metrics and previous is not None and made and not request.health:
            request.itl.append((now, (now - previous) / made, made))
            for _ in range(made):
                self.metrics.observe("inter_token_latency_seconds", (now - previous) / made)

    def _on_step_end(self, batch: list[Request], corrects: list[int]) -> None:
        if self.adaptive is not None:
            self.adaptive.after_verify(corrects, len(batch))
        self.stats.end_step(self.pool_use())

    def _on_retire(self, request: Request) -> None:
        if not self.boot.settings.disable_radix_cache:
            self.cached_states += 1

    def _on_finished(self, request: Request) -> None:
        if self.metrics:
            self._count_finished(self.metrics, request)

    @staticmethod
    def _count_finished(metrics: SimMetrics, request: Request) -> None:
        """SGLang's ``observe_one_finished_request``: token and request counters move only here."""
        streaming = request.streaming
        metrics.inc("prompt_tokens", request.prompt_tokens, streaming=streaming)
        metrics.inc("generation_tokens", request.completion_tokens, streaming=streaming)
        metrics.inc("cached_tokens", request.cached_tokens)
        metrics.inc("spec_verify_calls", request.verify_ct)
        metrics.inc("num_requests", streaming=streaming)
        if request.finish_reason == "abort":
            metrics.inc("num_aborted_requests")
        metrics.observe("e2e_request_latency_seconds", time.monotonic() - request.arrival, streaming=streaming)
