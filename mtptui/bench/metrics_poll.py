"""What the benchmark reads from `/metrics` (SGLang's `--enable-metrics`), with either name prefix.

- `Δ sglang:generation_tokens_total / Δ sglang:spec_verify_calls_total` is the exact accept length over a
  window (serving-benchmarks.md §2.5), where the verify counter exists (0.5.23; 0.5.12.post1 has none). Both
  counters move only when a request finishes, so the difference is taken over the whole run, never per second.
- an engine whose speculation counters are others (vLLM: `vllm:spec_decode_num_drafts_total` and
  `..._num_accepted_tokens_total`) gives a pair through the engine registry (``spec_tokens``, ``spec_steps``)
  whose differences divide to the accept length the same way: 1 + Δaccepted / Δdrafts for vLLM.
- `sglang:spec_accept_length` is a gauge of the last decode-log interval: each new value seen during the run
  is one interval's accept length (the live figure, and the run's figure when nothing better exists).

Names are read as SGLang writes them (`sglang:`) or as dashboards and the SGLang router re-export them (`sglang_`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Protocol

from mtptui.engines.registry import accept_counters
from mtptui.engines.sglang.exposition import family_values

GEN_TOKENS = "sglang:generation_tokens_total"
VERIFY_CALLS = "sglang:spec_verify_calls_total"
QUEUE = "sglang:num_queue_reqs"
RUNNING = "sglang:num_running_reqs"
ACCEPT_GAUGE = "sglang:spec_accept_length"
_SUMMED = (GEN_TOKENS, VERIFY_CALLS, QUEUE, RUNNING)


@dataclass(frozen=True)
class Scrape:
    """Counters summed over every label set (ranks, is_streaming), the accept gauge averaged, read at `t`."""

    t: float
    gen_tokens: float | None
    verify_calls: float | None
    queue: float | None = None
    running: float | None = None
    accept_gauge: float | None = None
    spec_tokens: float | None = None  # another engine's counters (mtptui.engines.registry.accept_counters)
    spec_steps: float | None = None

    @property
    def speculative(self) -> bool:
        """Whether the scrape has an engine's speculation counters (a server without speculation has none)."""
        return self.spec_steps is not None


def parse_metrics(text: str, t: float = 0.0) -> Scrape:
    """The series the benchmark needs from a Prometheus text exposition."""
    found = family_values(text, (*_SUMMED, ACCEPT_GAUGE))
    sums = {name: sum(values) for name, values in found.items() if name in _SUMMED}
    gauges = found.get(ACCEPT_GAUGE)
    gauge = sum(gauges) / len(gauges) if gauges else None
    spec = None if VERIFY_CALLS in sums else accept_counters(text)
    return Scrape(t, sums.get(GEN_TOKENS), sums.get(VERIFY_CALLS), sums.get(QUEUE), sums.get(RUNNING), gauge,
                  *(spec or (None, None)))


def _counters(scrape: Scrape | None) -> tuple[float, float] | None:
    """(generated tokens, verify calls) of a scrape that has both counters, else another engine's pair, else None."""
    if scrape is None:
        return None
    if scrape.gen_tokens is not None and scrape.verify_calls is not None:
        return scrape.gen_tokens, scrape.verify_calls
    if scrape.spec_tokens is not None and scrape.spec_steps is not None:
        return scrape.spec_tokens, scrape.spec_steps
    return None


def accept_len_between(before: Scrape | None, after: Scrape | None) -> float | None:
    """Accept length from the counters between two scrapes, or None when the server has no verify counter."""
    start, end = _counters(before), _counters(after)
    if start is None or end is None:
        return None
    tokens, verify = end[0] - start[0], end[1] - start[1]
    return tokens / verify if verify > 0 and tokens >= 0 else None


class MetricsSource(Protocol):
    """What the poller needs of a client (a ``ChatClient``): a GET that answers (status, JSON or text)."""

    async def get_json(self, path: str) -> tuple[int, Any]: ...


@dataclass
class MetricsPoller:
    """Scrapes `/metrics` through a `ChatClient`; disabled after the first failed scrape (no --enable-metrics).

    `gauge_updates` holds (time, value) each time the accept-length gauge took a new value.
    """

    client: MetricsSource
    enabled: bool = True
    latest: Scrape | None = None
    gauge_updates: list[tuple[float, float]] = field(default_factory=list)

    async def scrape(self) -> Scrape | None:
        if not self.enabled:
            return None
        try:
            status, body = await self.client.get_json("/metrics")
        except Exception:  # noqa: BLE001 - any failure only disables the optional figures
            status, body = 0, None
        if status != 200 or not isinstance(body, str):
            self.enabled = False
            return None
        try:
            scrape = parse_metrics(body, perf_counter())
        except ValueError:
            self.enabled = False
            return None
        previous, self.latest = self.latest, scrape
        if previous is not None and scrape.accept_gauge is not None and scrape.accept_gauge != previous.accept_gauge:
            self.gauge_updates.append((scrape.t, scrape.accept_gauge))
        return scrape

    def gauge_between(self, start: float, end: float) -> list[float]:
        return [value for t, value in self.gauge_updates if start <= t <= end]
