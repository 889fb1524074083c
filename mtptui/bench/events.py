"""The live feed of a benchmark run: plain frozen dataclasses a UI (or the CLI) subscribes to.

A run emits, in order: `RunStarted`; then, interleaved, `RequestDone` (one per request, warm-up ones flagged),
`RateSample` (one per second of the measured run) and `Notice` (a warning worth showing); last `RunFinished`
with the final result. Nothing here imports Textual; a UI turns these into its own messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from mtptui.bench.rate import RateSample  # re-exported: one of the events
from mtptui.bench.result import BenchResult

if TYPE_CHECKING:
    from mtptui.bench.metrics import RequestMetrics

__all__ = ["BenchEvent", "Notice", "RateSample", "RequestDone", "RunFinished", "RunStarted"]


@dataclass(frozen=True)
class RunStarted:
    """The run is configured and the server answered; warm-up is about to begin."""

    url: str
    requests: int
    warmup: int
    concurrency: int
    fingerprint: dict[str, Any]


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

    result: BenchResult


BenchEvent = Union[RunStarted, RateSample, RequestDone, Notice, RunFinished]
