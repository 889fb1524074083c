"""The live feed of a benchmark run: plain frozen dataclasses a UI (or the CLI) subscribes to.

A run emits, in order: `RunStarted`; then, interleaved, `RequestDone` (one per request, warm-up ones flagged),
`RateSample` (one per second of the measured run) and `Notice` (a warning worth showing); last `RunFinished`
with the final result. Nothing here imports Textual; a UI turns these into its own messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from mtptui.bench.metrics import RequestMetrics
    from mtptui.bench.result import BenchResult


@dataclass(frozen=True)
class RunStarted:
    """The run is configured and the server answered; warm-up is about to begin."""

    url: str
    requests: int
    warmup: int
    concurrency: int
    fingerprint: dict[str, Any]


@dataclass(frozen=True)
class RateSample:
    """Output tokens per second over one bin of the measured run, split reasoning/content, from server usage.

    `t` is the end of the bin in seconds since the first measured request was dispatched; `accept_len` is the
    server's newest accept length that arrived in the bin (a decode-log line, else a new value of the
    `sglang:spec_accept_length` gauge; None when neither came), and `accept_from` says which ("server log",
    "gauge"). Never counter deltas: SGLang's counters move only when a request finishes.
    """

    t: float
    width: float
    reasoning_tok_s: float
    content_tok_s: float
    in_flight: int
    finished: int
    failed: int
    total: int
    accept_len: float | None = None
    queue: float | None = None
    accept_from: str | None = None

    @property
    def output_tok_s(self) -> float:
        return self.reasoning_tok_s + self.content_tok_s


@dataclass(frozen=True)
class RequestDone:
    """One request finished (or failed); warm-up requests have `warmup=True` and are not in the results."""

    index: int
    prompt: str
    warmup: bool
    metrics: "RequestMetrics"


@dataclass(frozen=True)
class Notice:
    """A warning about the measurement, e.g. the server sends no usage so token counts are approximate."""

    message: str


@dataclass(frozen=True)
class RunFinished:
    """The final result; always the last event of a run."""

    result: "BenchResult"


BenchEvent = Union[RunStarted, RateSample, RequestDone, Notice, RunFinished]
