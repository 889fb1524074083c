"""Serving figures from the log's batch lines: load, queue, pool usage, request rate, HTTP errors, retractions,
and the samples the health line judges (per-request decode speed and acceptance of this startup).

Decode and prefill lines carry ``#running-req``, ``#queue-req`` and the pool usage (``token usage`` or, on a
hybrid pool, ``full token usage`` and ``mamba usage``); prefill lines carry ``#new-seq`` (requests admitted),
the access log the HTTP statuses, and SGLang's KV-pool warning says when requests were retracted.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from mtptui.sglang.logparse import Event

SPARK_LEN = 60
SAMPLES = 120  # decode lines of this startup the health line judges (each covers ~40 decode steps)
RATE_WINDOW_S = 60.0
RETRACTED = re.compile(r"#retracted_reqs: (\d+)")
CONTEXT_BUCKETS = (4096, 16384)  # tokens per running request: short, medium, long


def context_bucket(tokens_per_request: float) -> int:
    """0, 1 or 2: below 4k, below 16k, from 16k tokens of context per running request."""
    return sum(tokens_per_request >= edge for edge in CONTEXT_BUCKETS)


def bucket_label(index: int) -> str:
    edges = (0, *CONTEXT_BUCKETS)
    return f"<{CONTEXT_BUCKETS[index] // 1024}k" if index < len(CONTEXT_BUCKETS) else f"≥{edges[-1] // 1024}k"


@dataclass
class ServingStats:
    """Bounded histories and counters; ``decode`` gets the warm-up flag the session decides."""

    running: deque[int] = field(default_factory=lambda: deque(maxlen=SPARK_LEN))
    queued: deque[int] = field(default_factory=lambda: deque(maxlen=SPARK_LEN))
    token_usage: deque[float] = field(default_factory=lambda: deque(maxlen=SPARK_LEN))
    mamba_usage: deque[float] = field(default_factory=lambda: deque(maxlen=SPARK_LEN))
    speed: deque[float] = field(default_factory=lambda: deque(maxlen=SAMPLES))  # gen tok/s per running request
    accept: deque[float] = field(default_factory=lambda: deque(maxlen=SAMPLES))
    accept_by_context: list[deque[float]] = field(
        default_factory=lambda: [deque(maxlen=SAMPLES) for _ in range(len(CONTEXT_BUCKETS) + 1)])
    http_errors: int = 0
    retractions: int = 0
    admitted: deque[tuple[float, int]] = field(default_factory=lambda: deque(maxlen=4096))  # (t, #new-seq)
    last_t: float | None = None  # log time of the latest batch line (seconds, the session's clock)
    metrics: dict[str, float | None] = field(default_factory=dict)  # the latest /metrics figures
    metrics_missing: str | None = None  # why /metrics cannot be read, once that is known
    metrics_rate: float | None = None  # requests finished per second between the last two scrapes
    _scraped: tuple[float, float] | None = None  # (t, requests counter) of the scrape before

    def new_startup(self) -> None:
        """Figures of another launch are not this one's: the judged samples start again."""
        for series in (self.speed, self.accept, *self.accept_by_context):
            series.clear()

    def apply(self, event: Event, t: float | None) -> None:
        """A prefill, access-log or warning event (decode lines come through ``decode``)."""
        fields = event.fields
        if event.kind == "prefill":
            self._load(fields, t)
            if t is not None and fields.get("new_seq"):
                self.admitted.append((t, int(fields["new_seq"])))
        elif event.kind == "http_access" and isinstance(fields.get("status"), int) and fields["status"] >= 400:
            self.http_errors += 1
        elif event.kind == "warning" and "retract" in str(fields.get("message", "")).lower():
            counted = RETRACTED.search(str(fields["message"]))
            self.retractions += int(counted.group(1)) if counted else 1

    def decode(self, fields: dict[str, Any], t: float | None, warm_up: bool) -> None:
        self._load(fields, t)
        running, throughput = fields.get("running_req"), fields.get("gen_throughput")
        if warm_up or not running:
            return
        if throughput is not None:
            self.speed.append(throughput / running)
        accept = fields.get("accept_len")
        if accept is not None:
            self.accept.append(accept)
            if fields.get("tokens") is not None:
                self.accept_by_context[context_bucket(fields["tokens"] / running)].append(accept)

    def _load(self, fields: dict[str, Any], t: float | None) -> None:
        self.last_t = t if t is not None else self.last_t
        for series, name in ((self.running, "running_req"), (self.queued, "queue_req"),
                             (self.token_usage, "token_usage"), (self.mamba_usage, "mamba_usage")):
            if fields.get(name) is not None:
                series.append(fields[name])

    def apply_metrics(self, t: float, figures: dict[str, float | None], missing: str | None = None) -> None:
        """A /metrics scrape at monotonic ``t`` (or why there is none)."""
        self.metrics_missing = missing
        if missing is not None:
            self.metrics, self._scraped, self.metrics_rate = {}, None, None
            return
        self.metrics = figures
        served = figures.get("requests")
        if served is None:
            return
        if self._scraped is not None and t > self._scraped[0] and served >= self._scraped[1]:
            self.metrics_rate = (served - self._scraped[1]) / (t - self._scraped[0])
        self._scraped = (t, served)

    def request_rate(self) -> float | None:
        """Requests admitted per second over the last minute of log time; None before any timestamp."""
        now = self.last_t
        if now is None:
            return None
        while self.admitted and self.admitted[0][0] < now - RATE_WINDOW_S:
            self.admitted.popleft()
        return sum(count for _, count in self.admitted) / RATE_WINDOW_S
