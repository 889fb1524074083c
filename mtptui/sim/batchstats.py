"""The scheduler's batch statistics: the Prefill/Decode batch log lines and the gauges they update.

Counters reset at every decode log, as SGLang's do: accept length = accepted tokens / request-steps over the
interval, accept rate = correct drafts / (request-steps x drafts per round), gen throughput = tokens since the
previous decode log / the wall time since it (idle time included, so the first line after a pause is low).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from mtptui.sim import messages as msg
from mtptui.sim.boot import Boot
from mtptui.sim.logfmt import LogWriter
from mtptui.sim.metrics import SimMetrics


@dataclass
class PoolUse:
    """How full the pools are right now."""

    tokens: int
    running: int
    queued: int
    mamba: int


class BatchStats:
    """Interval counters, lifetime spec counters and the log lines built from them."""

    def __init__(self, boot: Boot, log: LogWriter, metrics: SimMetrics | None) -> None:
        self.boot, self.log, self.metrics = boot, log, metrics
        self.forward_ct = 0
        self.last_decode_log = time.monotonic()
        self.last_prefill_log = time.monotonic()
        self.last_prefill_tokens = 0
        self.last_gen_throughput = 0.0
        self.last_spec: tuple[float, float] | None = None  # (accept length, accept rate) of the last decode log
        self.iv_tokens = self.iv_steps = self.iv_correct = self.iv_proposed = 0
        self.cum_accepted = self.cum_steps = 0
        self.last_publish = time.monotonic()
        if metrics is not None:
            self._publish_startup(metrics)

    @property
    def avg_spec_accept_length(self) -> float | None:
        """Lifetime average, advanced only at decode-log boundaries; None before the first (as /server_info)."""
        if not self.boot.settings.speculative or not self.cum_steps:
            return None
        return self.cum_accepted / self.cum_steps

    def _usage(self, use: PoolUse, decode: bool) -> list[str]:
        plan = self.boot.memory
        mamba_size = plan.mamba.size if plan.mamba else 1
        return msg.usage_parts(plan.mamba is not None, use.tokens, use.tokens / max(plan.tokens, 1),
                               use.mamba, use.mamba / mamba_size, decode)

    def prefill(self, new_seq: int, new_tokens: int, cached: int, use: PoolUse) -> None:
        now = time.monotonic()
        throughput = self.last_prefill_tokens / max(now - self.last_prefill_log, 1e-9)
        self.last_prefill_log, self.last_prefill_tokens = now, new_tokens
        self.log.rank(0, msg.prefill_batch(new_seq, new_tokens, cached, self._usage(use, False), use.running,
                                           use.queued, 0, False, throughput))

    def step(self, tokens: int, correct: int, proposed: int = 0) -> None:
        """One request's share of a decode step: ``tokens`` accepted, ``correct`` of its ``proposed`` drafts right
        (drafts per round: the accept rate's denominator, which moves with adaptive speculation)."""
        self.iv_tokens += tokens
        self.iv_steps += 1
        self.iv_correct += correct
        self.iv_proposed += proposed

    def end_step(self, use: PoolUse) -> None:
        """After a whole decode step: log and publish every ``--decode-log-interval`` steps."""
        self.forward_ct += 1
        if self.forward_ct % self.boot.settings.decode_log_interval == 0:
            self._decode_log(use)

    def _decode_log(self, use: PoolUse) -> None:
        now = time.monotonic()
        self.last_gen_throughput = self.iv_tokens / max(now - self.last_decode_log, 1e-9)
        self.last_decode_log = now
        spec = None
        if self.boot.settings.speculative and self.iv_steps:
            spec = (self.iv_tokens / self.iv_steps, self.iv_correct / self.iv_proposed if self.iv_proposed else 0.0)
            self.cum_accepted += self.iv_tokens
            self.cum_steps += self.iv_steps
            self.last_spec = spec
        graph = bool(self.boot.capture_bs) and use.running <= max(self.boot.capture_bs)
        self.log.rank(0, msg.decode_batch(use.running, self._usage(use, True), spec, graph,
                                          self.last_gen_throughput, use.queued))
        self._publish(use, spec, graph)
        self.iv_tokens = self.iv_steps = self.iv_correct = self.iv_proposed = 0

    def idle(self, use: PoolUse, every_s: float) -> None:
        """While idle, the gauges are republished every ``every_s``: nothing running, no throughput."""
        if self.metrics is not None and time.monotonic() - self.last_publish >= every_s * 0.999:
            self._publish(use, None, False, throughput=0.0)

    def _publish_startup(self, metrics: SimMetrics) -> None:
        boot, plan = self.boot, self.boot.memory
        metrics.set(max_total_num_tokens=plan.tokens, context_len=boot.context_len,
                    spec_num_steps=boot.settings.spec_steps, spec_num_draft_tokens=boot.settings.spec_draft_tokens,
                    weight_memory_usage_gb=plan.weights_gb + plan.draft_weights_gb,
                    kv_cache_memory_usage_gb=2 * (plan.k_gb + plan.draft_k_gb))

    def _publish(self, use: PoolUse, spec: tuple[float, float] | None, graph: bool,
                 throughput: float | None = None) -> None:
        if self.metrics is None:
            return
        self.last_publish = time.monotonic()
        plan = self.boot.memory
        usage = use.tokens / max(plan.tokens, 1)
        self.metrics.set(num_running_reqs=use.running, num_queue_reqs=use.queued,
                         gen_throughput=self.last_gen_throughput if throughput is None else throughput,
                         token_usage=usage, num_used_tokens=use.tokens,
                         full_token_usage=usage, kv_used_tokens=use.tokens,
                         kv_available_tokens=plan.tokens - use.tokens, is_cuda_graph=float(graph),
                         cache_hit_rate=0.0, num_retracted_reqs=0,
                         mamba_usage=use.mamba / plan.mamba.size if plan.mamba else None)
        if spec is not None:
            self.metrics.set(spec_accept_length=spec[0], spec_accept_rate=spec[1])
        if self.boot.settings.speculative:  # the steps running now (0.5.23's gauges follow adaptive switches)
            self.metrics.set(spec_num_steps=self.boot.decode.steps, spec_num_draft_tokens=self.boot.decode.draft_tokens)
