"""vLLM's periodic log lines: `Engine 000: Avg prompt throughput ...` and `SpecDecoding metrics: ...`.

As LoggingStatLogger does: tokens and drafts are summed over the interval (`VLLM_LOG_STATS_INTERVAL`, 10 s) and
divided by its length; the running and waiting counts and the KV usage are the last step's. An interval whose
throughputs and the previous interval's are all zero is logged at DEBUG (so not at all at INFO): an idle server
is quiet. The SpecDecoding line follows when the interval drafted anything: acceptance length
1 + accepted / drafts, per position accepted at k / drafts, the rate accepted / draft tokens.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from mtptui.engines.vllm.sim import messages as msg
from mtptui.engines.vllm.sim.logfmt import VllmLog

DEFAULT_INTERVAL_S = 10.0


@dataclass
class Interval:
    """What the engine did since the last log line, and its last scheduler state."""

    positions: int
    prompt_tokens: int = 0
    generation_tokens: int = 0
    drafts: int = 0
    draft_tokens: int = 0
    accepted: int = 0
    per_position: list[int] = field(default_factory=list)
    running: int = 0
    waiting: int = 0
    kv_usage: float = 0.0
    cache_queries: int = 0  # lifetime: vLLM's hit rate is over recent requests, not the interval
    cache_hits: int = 0

    def __post_init__(self) -> None:
        self.per_position = [0] * self.positions

    def draft(self, proposed: int, accepted: int) -> None:
        self.drafts += 1
        self.draft_tokens += proposed
        self.accepted += accepted
        for position in range(accepted):
            self.per_position[position] += 1

    def restart(self) -> None:
        self.prompt_tokens = self.generation_tokens = self.drafts = self.draft_tokens = self.accepted = 0
        self.per_position = [0] * self.positions


class StatLogger:
    """Turns the interval into the two lines, every ``interval_s``, from the API server."""

    def __init__(self, log: VllmLog, positions: int, prefix_caching: bool,
                 interval_s: float = DEFAULT_INTERVAL_S) -> None:
        self.log, self.prefix_caching, self.interval_s = log, prefix_caching, interval_s
        self.now = time.monotonic
        self.iv = Interval(positions)
        self.last_time = self.now()
        self.last_prompt = self.last_generation = 0.0

    def flush(self) -> None:
        """The end of an interval: log its lines (INFO unless idle) and start the next."""
        now = self.now()
        elapsed = max(now - self.last_time, 1e-9)
        prompt, generation = self.iv.prompt_tokens / elapsed, self.iv.generation_tokens / elapsed
        idle = not any((prompt, generation, self.last_prompt, self.last_generation))
        self.last_prompt, self.last_generation, self.last_time = prompt, generation, now
        level = "DEBUG" if idle else "INFO"
        self.log.line(msg.API, msg.SOURCES["stats"], self.stats_line(prompt, generation), level)
        if self.iv.drafts:
            self.log.line(msg.API, msg.SOURCES["spec"], self.spec_line(elapsed), level)
        self.iv.restart()

    def stats_line(self, prompt: float, generation: float) -> str:
        iv = self.iv
        parts = [f"Avg prompt throughput: {prompt:.1f} tokens/s", f"Avg generation throughput: {generation:.1f} "
                 "tokens/s", f"Running: {iv.running} reqs", f"Waiting: {iv.waiting} reqs",
                 f"GPU KV cache usage: {iv.kv_usage * 100:.1f}%"]
        if self.prefix_caching and iv.cache_queries:
            parts.append(f"Prefix cache hit rate: {iv.cache_hits / iv.cache_queries * 100:.1f}%")
        return "Engine 000: " + ", ".join(parts)

    def spec_line(self, elapsed: float) -> str:
        iv = self.iv
        rates = ", ".join(f"{count / iv.drafts:.3f}" for count in iv.per_position)
        rate = iv.accepted / iv.draft_tokens * 100 if iv.draft_tokens else float("nan")
        return (f"SpecDecoding metrics: Mean acceptance length: {1 + iv.accepted / iv.drafts:.2f}, "
                f"Accepted throughput: {iv.accepted / elapsed:.2f} tokens/s, "
                f"Drafted throughput: {iv.draft_tokens / elapsed:.2f} tokens/s, Accepted: {iv.accepted} tokens, "
                f"Drafted: {iv.draft_tokens} tokens, Per-position acceptance rate: {rates}, "
                f"Avg Draft acceptance rate: {rate:.1f}%")
