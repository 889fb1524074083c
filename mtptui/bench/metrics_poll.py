"""Server-wide live accept length from `/metrics` counter deltas (needs SGLang's `--enable-metrics`).

`Δ sglang:generation_tokens_total / Δ sglang:spec_verify_calls_total` is the exact accept length over any
scrape window (serving-benchmarks.md §2.5); the gauges `sglang:spec_accept_length` only cover the last
logging interval, and `/server_info`'s value is a lifetime average, so neither is used for a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter

from prometheus_client.parser import text_string_to_metric_families

GEN_TOKENS = "sglang:generation_tokens_total"
VERIFY_CALLS = "sglang:spec_verify_calls_total"
QUEUE = "sglang:num_queue_reqs"
RUNNING = "sglang:num_running_reqs"


@dataclass(frozen=True)
class Scrape:
    """Counters summed over every label set (ranks), read at `t`."""

    t: float
    gen_tokens: float | None
    verify_calls: float | None
    queue: float | None = None
    running: float | None = None


def parse_metrics(text: str, t: float = 0.0) -> Scrape:
    """Sum the series the benchmark needs from a Prometheus text exposition."""
    sums: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in (GEN_TOKENS, VERIFY_CALLS, QUEUE, RUNNING):
                sums[sample.name] = sums.get(sample.name, 0.0) + float(sample.value)
    return Scrape(t, sums.get(GEN_TOKENS), sums.get(VERIFY_CALLS), sums.get(QUEUE), sums.get(RUNNING))


def accept_len_between(before: Scrape | None, after: Scrape | None) -> float | None:
    """Accept length over the window between two scrapes, or None when it cannot be told."""
    if before is None or after is None:
        return None
    if None in (before.gen_tokens, before.verify_calls, after.gen_tokens, after.verify_calls):
        return None
    verify = after.verify_calls - before.verify_calls
    tokens = after.gen_tokens - before.gen_tokens
    return tokens / verify if verify > 0 and tokens >= 0 else None


class MetricsPoller:
    """Scrapes `/metrics` through a `ChatClient`; disabled after the first failed scrape (no --enable-metrics)."""

    def __init__(self, client) -> None:
        self._client = client
        self.enabled = True
        self.previous: Scrape | None = None
        self.latest: Scrape | None = None

    async def scrape(self) -> Scrape | None:
        if not self.enabled:
            return None
        try:
            status, body = await self._client.get_json("/metrics")
        except Exception:  # noqa: BLE001 - any failure only disables the optional live figure
            status, body = 0, None
        if status != 200 or not isinstance(body, str):
            self.enabled = False
            return None
        try:
            scrape = parse_metrics(body, perf_counter())
        except ValueError:
            self.enabled = False
            return None
        self.previous, self.latest = self.latest, scrape
        return scrape

    def live_accept_len(self) -> float | None:
        """Accept length between the last two scrapes."""
        return accept_len_between(self.previous, self.latest)
