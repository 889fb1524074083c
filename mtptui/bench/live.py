"""Live counters of a run, updated by the reading tasks in O(1) and read by the sampling task."""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.bench.tokens import Delta


@dataclass
class Bin:
    """Tokens that arrived in [start, start + width)."""

    start: float
    width: float
    reasoning: int = 0
    content: int = 0


class RateBins:
    """Tokens binned by their arrival time (the reading task's timestamp) into fixed-width bins.

    The sampler pops bins once the clock has passed their end, so every token is booked in the bin of the
    instant it was read, whenever the sampler gets to run; the bins' totals equal the tokens received.
    """

    def __init__(self, origin: float, width: float = 1.0) -> None:
        self.origin, self.width = origin, width
        self._next = 0
        self._open: dict[int, list[int]] = {}

    def add(self, t: float, delta: Delta) -> None:
        index = max(self._next, int((t - self.origin) // self.width))
        slot = self._open.setdefault(index, [0, 0])
        slot[0] += delta.reasoning
        slot[1] += delta.content

    def completed(self, now: float) -> list[Bin]:
        """Bins that ended at or before `now`, in order, empty ones included."""
        done = []
        while self.origin + (self._next + 1) * self.width <= now:
            done.append(self._pop(self.width))
        return done

    def flush(self, end: float) -> list[Bin]:
        """Every remaining bin up to `end`; the last one is cut at `end`."""
        done = self.completed(end)
        start = self.origin + self._next * self.width
        if end > start or self._open:
            done.append(self._pop(max(end - start, 1e-9)))
        while self._open:
            done.append(self._pop(self.width))
        return done

    def _pop(self, width: float) -> Bin:
        reasoning, content = self._open.pop(self._next, (0, 0))
        item = Bin(self._next * self.width, width, reasoning, content)
        self._next += 1
        return item


@dataclass
class Progress:
    """Request counts of the measured run."""

    total: int
    in_flight: int = 0
    finished: int = 0
    failed: int = 0
