"""One per-second sample of a run's output rate: an event of the live feed and a row of the final result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

LiveAcceptSource = Literal["server log", "gauge"]


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
    accept_from: LiveAcceptSource | None = None

    @property
    def output_tok_s(self) -> float:
        return self.reasoning_tok_s + self.content_tok_s
