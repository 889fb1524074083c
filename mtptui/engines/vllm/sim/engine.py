"""vLLM's engine core in the simulated server: the shared scheduler (mtptui.sim.scheduler) with vLLM's sizes,
counted as vLLM counts: per step into the interval its log lines print (stats.py) and into its Prometheus
families (metrics.py).

Sizes: up to `--max-num-seqs` requests decoding together, prefill in chunks of `--max-num-batched-tokens`. A
speculative step proposes `num_speculative_tokens` drafts per running request (vLLM counts one draft per request
and step) and accepts a prefix of them, the bonus token on top. KV usage is the blocks the running requests
hold over all blocks; a prompt seen before is served from the prefix cache in whole blocks.
"""

from __future__ import annotations

import random
import time

from mtptui.engines.vllm.sim.boot import VllmBoot
from mtptui.engines.vllm.sim.metrics import VllmMetrics
from mtptui.engines.vllm.sim.stats import Interval
from mtptui.sim.request import Request
from mtptui.sim.scheduler import Scheduler

REASONS = {"stop": "stop", "length": "length", "abort": "abort"}


class VllmEngine(Scheduler):
    """The engine core: the shared loop, counted as vLLM's scheduler and stat loggers count."""

    def __init__(self, boot: VllmBoot, rng: random.Random, interval: Interval,
                 metrics: VllmMetrics | None = None) -> None:
        super().__init__(rng)
        s = boot.settings
        self.decode = boot.decode
        self.boot, self.interval, self.metrics = boot, interval, metrics
        self.max_running = s.max_num_seqs
        self.prefill_budget = self.prefill_chunk = s.max_num_batched_tokens
        self._step_tokens = 0

    def kv_usage(self) -> float:
        size, blocks = self.boot.settings.block_size, max(self.boot.memory.blocks, 1)
        used = sum(-(-r.total_tokens // size) for r in self.running)
        return min(1.0, used / blocks)

    def _publish(self) -> None:
        """The scheduler stats of one engine step: what the log's next line and the gauges show."""
        iv = self.interval
        iv.running, iv.waiting, iv.kv_usage = len(self.running), len(self.waiting), self.kv_usage()
        if self.metrics is not None:
            m = self.metrics
            m.set("vllm:num_requests_running", iv.running)
            m.set("vllm:num_requests_waiting", iv.waiting)
            m.set("vllm:num_requests_waiting_by_reason", iv.waiting, "capacity")
            m.set("vllm:kv_cache_usage_perc", iv.kv_usage)

    def _on_admit(self, request: Request, start: float) -> None:
        self.interval.cache_queries += request.prompt_tokens
        self.interval.cache_hits += request.cached_tokens
        if self.metrics is not None:
            self.metrics.inc("vllm:prefix_cache_queries", request.prompt_tokens)
            self.metrics.inc("vllm:prefix_cache_hits", request.cached_tokens)
            self.metrics.inc("vllm:prompt_tokens_cached_by_source", request.cached_tokens, "device")

    def _on_prefill_chunk(self, batch: list[Request], tokens: int, cached: int) -> None:
        self.interval.prompt_tokens += tokens
        self._publish()
        if self.metrics is not None:
            m = self.metrics
            m.inc("vllm:prompt_tokens", tokens + cached)
            m.inc("vllm:prompt_tokens_by_source", tokens, "local_compute")
            m.inc("vllm:prompt_tokens_by_source", cached, "local_cache_hit")
            m.inc("vllm:prompt_tokens_cached", cached)
            m.observe("vllm:iteration_tokens_total", max(tokens, 1))

    def _on_first_token(self, request: Request, now: float) -> None:
        self.interval.generation_tokens += 1
        if self.metrics is not None:
            self.metrics.inc("vllm:generation_tokens", 1)
            self.metrics.observe("vllm:time_to_first_token_seconds", now - request.arrival)

    def _on_step_begin(self, batch: list[Request]) -> None:
        self._step_tokens = 0

    def _on_tokens(self, request: Request, made: int, correct: int, now: float, previous: float | None) -> None:
        self.interval.generation_tokens += made
        self._step_tokens += self.decode.verified_tokens
        if self.decode.speculative:
            self.interval.draft(self.decode.steps, correct)
        if previous is not None and made:
            request.itl.append((now, (now - previous) / made, made))
        if self.metrics is not None:
            self._count_step(request, made, correct, now, previous)

    def _count_step(self, request: Request, made: int, correct: int, now: float, previous: float | None) -> None:
        m = self.metrics
        assert m is not None
        m.inc("vllm:generation_tokens", made)
        if previous is not None and made:
            m.observe("vllm:inter_token_latency_seconds", now - previous)
        if self.decode.speculative:
            m.inc("vllm:spec_decode_num_drafts", 1)
            m.inc("vllm:spec_decode_num_draft_tokens", self.decode.steps)
            m.inc("vllm:spec_decode_num_accepted_tokens", correct)
            for position in range(correct):
                m.inc("vllm:spec_decode_num_accepted_tokens_per_pos", 1, str(position))

    def _on_step_end(self, batch: list[Request], corrects: list[int]) -> None:
        self._publish()
        if self.metrics is not None:
            self.metrics.observe("vllm:iteration_tokens_total", self._step_tokens)

    def _on_finished(self, request: Request) -> None:
        self._publish()
        if self.metrics is not None:
            self._count_finished(request)

    def _count_finished(self, request: Request) -> None:
        """The request histograms and `request_success`, as vLLM records a finished request."""
        m, now = self.metrics, time.monotonic()
        assert m is not None
        m.inc("vllm:request_success", 1, REASONS.get(request.finish_reason or "", "abort"))
        start, first = request.prefill_start or now, request.first_token_at or now
        last = request.last_token_at or now
        decode_s = max(last - first, 0.0)
        for name, value in (("vllm:request_prompt_tokens", request.prompt_tokens),
                            ("vllm:request_generation_tokens", request.completion_tokens),
                            ("vllm:request_params_n", 1), ("vllm:e2e_request_latency_seconds", now - request.arrival),
                            ("vllm:request_queue_time_seconds", start - request.arrival),
                            ("vllm:request_inference_time_seconds", last - start),
                            ("vllm:request_prefill_time_seconds", first - start),
                            ("vllm:request_decode_time_seconds", decode_s), ("vllm:request_num_preemptions", 0),
                            ("vllm:request_prefill_kv_computed_tokens", request.prompt_tokens - request.cached_tokens)):
            m.observe(name, value)
        if request.max_new_tokens is not None:
            m.observe("vllm:request_max_num_generation_tokens", request.max_new_tokens)
            m.observe("vllm:request_params_max_tokens", request.max_new_tokens)
        if request.completion_tokens > 1:
            m.observe("vllm:request_time_per_output_token_seconds", decode_s / (request.completion_tokens - 1))
