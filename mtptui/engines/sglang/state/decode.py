"""Decode-batch history: bounded time series, steady-state throughput without warm-up, the latest batch.

The summary fast path hands over raw decode lines with only the two numbers the running totals need, and a
`resolve` function that gives a raw line's timestamp and message; they are parsed into samples when the series
or the latest batch is read, so at most `maxlen` lines are ever parsed in full.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, NamedTuple

from mtptui.engines.sglang.logparse.batches import parse_batch


def decoded(fields: dict[str, Any]) -> bool:
    """Whether a decode line's batch decoded for running requests: SGLang's ``#running-req``; an engine whose line
    sums an interval (vLLM's stats line) says so itself (``busy``: tokens were generated in it, though no request
    may be running at its end)."""
    busy = fields.get("busy")
    return bool(fields.get("running_req")) if busy is None else bool(busy)


class Sample(NamedTuple):
    """One decode batch in the time series."""

    ts: str | None
    accept_len: float | None
    accept_rate: float | None
    gen_throughput: float | None
    running_req: int | None


class DecodeHistory:
    """All decode batches of a stream: counts and means over all of it, samples for the last `maxlen`."""

    def __init__(self, maxlen: int = 2000) -> None:
        self.count = 0
        self.steady_total = 0.0  # gen throughput of every startup's batches, each warm-up batch excluded
        self.steady_count = 0
        self._startup_mark = (0.0, 0)  # the two totals when the latest startup began
        self._warm_up_pending = True
        self.last_was_warm_up = False  # the latest batch was the first after a startup (the UI plots it apart)
        self._series: deque[Sample] = deque(maxlen=maxlen)
        self.raw: deque[Any] = deque(maxlen=maxlen)  # decode lines not parsed yet, as `resolve` takes them
        self.resolve: Callable[[Any], tuple[str | None, str]] | None = None  # raw line → (ts, decode message)
        self._last: dict[str, Any] | None = None

    def new_startup(self) -> None:
        """The next batch is a warm-up again (CUDA graph / JIT): keep it out of the steady means."""
        self._warm_up_pending = True
        self._startup_mark = (self.steady_total, self.steady_count)

    @property
    def steady_gen_throughput(self) -> float | None:
        """Mean decode throughput over batches with running requests, warm-up batches excluded."""
        return self.steady_total / self.steady_count if self.steady_count else None

    @property
    def steady_gen_throughput_this_startup(self) -> float | None:
        total, count = self._startup_mark
        count = self.steady_count - count
        return (self.steady_total - total) / count if count else None

    def add(self, ts: str | None, fields: dict[str, Any]) -> None:
        """A parsed decode event."""
        self._parse_raw()
        self._account(decoded(fields), fields["gen_throughput"])
        self._series.append(Sample(ts, fields["accept_len"], fields["accept_rate"], fields["gen_throughput"],
                                   fields["running_req"]))
        self._last = fields

    def add_raw(self, raw: Any, running_req: int, gen_throughput: float) -> None:
        """A decode line as `resolve` takes it, parsed later only if it is still in the window."""
        self.count += 1
        self.last_was_warm_up = self._warm_up_pending
        if self._warm_up_pending:
            self._warm_up_pending = False
        elif running_req:
            self.steady_total += gen_throughput
            self.steady_count += 1
        self.raw.append(raw)

    def counters(self) -> tuple[int, float, int, bool]:
        """The running totals, for a loop that adds raw lines itself (`set_counters` when it is done)."""
        return self.count, self.steady_total, self.steady_count, self._warm_up_pending

    def set_counters(self, count: int, steady_total: float, steady_count: int, warm_up_pending: bool) -> None:
        self.count, self.steady_total, self.steady_count = count, steady_total, steady_count
        self._warm_up_pending = warm_up_pending

    @property
    def series(self) -> deque[Sample]:
        self._parse_raw()
        return self._series

    @property
    def last(self) -> dict[str, Any] | None:
        """The fields of the latest decode batch."""
        self._parse_raw()
        return self._last

    def _account(self, running_req: int | bool | None, gen_throughput: float | None) -> None:
        self.count += 1
        self.last_was_warm_up = self._warm_up_pending
        if self._warm_up_pending:
            self._warm_up_pending = False
        elif running_req and gen_throughput is not None:
            self.steady_total += gen_throughput
            self.steady_count += 1

    def _parse_raw(self) -> None:
        raw, resolve = self.raw, self.resolve
        while raw:
            assert resolve is not None, "raw decode lines come with their resolver (state.scan)"
            ts, message = resolve(raw.popleft())
            parsed = parse_batch(message)
            fields = parsed[1] if parsed else {}
            self._series.append(Sample(ts, fields.get("accept_len"), fields.get("accept_rate"),
                                       fields.get("gen_throughput"), fields.get("running_req")))
            self._last = fields
