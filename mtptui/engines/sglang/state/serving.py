"""Serving figures from the log's batch lines: load, queue, pool usage, request rate, HTTP errors, retractions,
and the samples the health line judges (per-request decode speed of the steady lines,
``mtptui.engines.sglang.state.steady``, and acceptance of this startup).

Decode and prefill lines carry ``#running-req``, ``#queue-req`` and the pool usage (``token usage`` or, on a
hybrid pool, ``full token usage`` and ``mamba usage``); prefill lines carry ``#new-seq`` (requests admitted),
the access log the HTTP statuses, and SGLang's KV-pool warning says when requests were retracted.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from mtptui.engines.sglang.logparse import Event
from mtptui.engines.sglang.state.decode import decoded
from mtptui.engines.sglang.state.steady import SteadyLines, per_request

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
    speed_t: deque[float | None] = field(default_factory=lambda: deque(maxlen=SAMPLES))  # log time of each
    accept_t: deque[float | None] = field(default_factory=lambda: deque(maxlen=SAMPLES))
    step_ms: deque[float] = field(default_factory=lambda: deque(maxlen=SAMPLES))  # ms per decode step and request
    accept_by_context: list[deque[float]] = field(
        default_factory=lambda: [deque(maxlen=SAMPLES) for _ in range(len(CONTEXT_BUCKETS) + 1)])
    http_errors: int = 0
    retractions: int = 0
    retracted_t: float | None = None  # log time of the latest retraction
    admitted: deque[tuple[float, int]] = field(default_factory=lambda: deque(maxlen=4096))  # (t, #new-seq)
    last_t: float | None = None  # log time of the latest batch line (seconds, the session's clock)
    metrics: dict[str, float | None] = field(default_factory=dict)  # the latest /metrics figures
    metrics_missing: str | None = None  # why /metrics cannot be read, once that is known
    metrics_rate: float | None = None  # requests finished per second over the scrapes of the last minute
    scrapes: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=256))  # (t, requests counter)
    first_t: float | None = None  # log time of the first batch line (the log's window may be shorter than 60 s)
    steady: SteadyLines = field(default_factory=SteadyLines)  # which decode lines measured decoding

    def new_startup(self) -> None:
        """Figures of another launch are not this one's: the judged samples start again."""
        for series in (self.speed, self.accept, self.step_ms, *self.accept_by_context):
            series.clear()
        self.speed_t.clear()
        self.accept_t.clear()
        self.steady = SteadyLines()

    def clear_now(self) -> None:
        """Another process serves from now on (a restart): none of the figures so far are its own."""
        self.new_startup()
        for series in (self.running, self.queued, self.token_usage, self.mamba_usage):
            series.clear()
        self.admitted.clear()
        self.metrics, self.metrics_rate, self.first_t = {}, None, None
        self.scrapes.clear()

    def apply(self, event: Event, t: float | None) -> None:
        """A prefill, access-log or warning event (decode lines come through ``decode``)."""
        fields = event.fields
        if event.kind == "prefill":
            self.steady.prefill(fields)
            self._load(fields, t)
            if t is not None and fields.get("new_seq"):
                self.admitted.append((t, int(fields["new_seq"])))
        elif event.kind == "http_access" and isinstance(fields.get("status"), int) and fields["status"] >= 400:
            self.http_errors += 1
        elif event.kind == "warning" and "retract" in str(fields.get("message", "")).lower():
            counted = RETRACTED.search(str(fields["message"]))
            self.retractions += int(counted.group(1)) if counted else 1
            self.retracted_t = t if t is not None else self.last_t

    def decode(self, fields: dict[str, Any], t: float | None, warm_up: bool) -> None:
        self._load(fields, t)
        steady = self.steady.decode(fields)
        running, speed = fields.get("running_req"), per_request(fields)
        if warm_up or not decoded(fields):
            return
        if speed is not None and steady:  # a line after idle time reads low: not how fast requests decode
            self.speed.append(speed)
            self.speed_t.append(t)
        accept, throughput = fields.get("accept_len"), fields.get("gen_throughput")
        if throughput and steady and running:  # idle time in the line's interval would read as slow steps
            self.step_ms.append(1000.0 * (accept or 1.0) * running / throughput)
        if accept is not None:
            self.accept.append(accept)
            self.accept_t.append(t)
            if fields.get("tokens") is not None:
                self.accept_by_context[context_bucket(fields["tokens"] / running)].append(accept)

    def _load(self, fields: dict[str, Any], t: float | None) -> None:
        self.last_t = t if t is not None else self.last_t
        if self.first_t is None:
            self.first_t = t
        for series, name in ((self.running, "running_req"), (self.queued, "queue_req"),
                             (self.token_usage, "token_usage"), (self.mamba_usage, "mamba_usage")):
            if fields.get(name) is not None:
                series.append(fields[name])

    def apply_metrics(self, t: float, figures: dict[str, float | None], missing: str | None = None) -> None:
        """A /metrics scrape at monotonic ``t`` (or why there is none)."""
        self.metrics_missing = missing
        if missing is not None:
            self.metrics, self.metrics_rate = {}, None
            self.scrapes.clear()
            return
        self.metrics = figures
        served = figures.get("requests")
        if served is None:
            return
        if self.scrapes and served < self.scrapes[-1][1]:
            self.scrapes.clear()  # the counter started again: another process
        self.scrapes.append((t, served))
        while len(self.scrapes) > 2 and self.scrapes[1][0] <= t - RATE_WINDOW_S:
            self.scrapes.popleft()
        (first_t, first), (last_t, last) = self.scrapes[0], self.scrapes[-1]
        self.metrics_rate = (last - first) / (last_t - first_t) if last_t > first_t else None

    def request_rate(self) -> float | None:
        """Requests admitted per second over the last minute of log time (over the log's own span while it is
        shorter, as the /metrics rate is over its scrapes'); None before any timestamp."""
        now = self.last_t
        if now is None:
            return None
        while self.admitted and self.admitted[0][0] <= now - RATE_WINDOW_S:
            self.admitted.popleft()
        start = max(now - RATE_WINDOW_S, self.first_t if self.first_t is not None else now)
        admitted = sum(count for t, count in self.admitted if t > start)  # (start, now]: as a counter's delta
        return admitted / (now - start) if now > start else None

    def squeezed(self) -> bool:
        """Requests wait for room now, or running ones were retracted within the last minute: a full pool then
        hurts (a pool full of cached states that new requests evict does not)."""
        waiting = bool(self.queued) and self.queued[-1] > 0
        recent = self.retracted_t is not None and self.last_t is not None and \
            self.last_t - self.retracted_t <= RATE_WINDOW_S
        return waiting or recent

    def rates_differ(self) -> bool:
        """The log's rate (requests admitted) and /metrics' (requests finished) differ by more than a request or
        two over the window: a burst admitted and not finished yet, or requests still queued."""
        log, metrics = self.request_rate(), self.metrics_rate
        return log is not None and metrics is not None and abs(log - metrics) * RATE_WINDOW_S > 2.0
