"""What a Prometheus-derived figure may be, given a simulated server's truth (``/sim/requests?itl=1``).

A rate over ``[T - w, T]`` uses the samples inside the window: the first is at most one scrape interval ``s``
after its start, the last at most ``s`` before its end (``2s`` while a scrape is in flight), and Prometheus
extrapolates their difference to the whole window. So a counter's rate lies between what finished in
``(T - w + s, T - 2s]`` over ``w`` and what finished in ``(T - w, T]`` over ``w - 2s`` (``SLACK`` more on each side
for when a scrape reads the counter).
Ratios of two counters lie between the mediants of the sure requests with or without the edge ones, and a
histogram quantile lies in the bucket of the true quantile of some set between the sure and the possible
observations. Times: the simulated server's are ``time.monotonic()``, the same clock in every process here.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Sequence

SLACK = 0.25


def mono_to_wall() -> float:
    """Add this to a ``time.monotonic()`` value to get epoch seconds."""
    return time.time() - time.monotonic()


@dataclass(frozen=True)
class Window:
    """The rate window ``(end - width, end]`` in epoch seconds, and the scrape interval; ``lag``: a recording
    rule evaluated the window up to that much before ``end``."""

    end: float
    width: float
    scrape: float
    lag: float = 0.0

    def sure(self, t: float) -> bool:
        """Inside the window for every placement of the scrapes (and of the rule's evaluation); at the end two
        scrapes, since the newest may still be in flight when the query runs."""
        return self.end - self.width + self.scrape + SLACK < t <= self.end - self.lag - 2 * self.scrape - SLACK

    def possible(self, t: float) -> bool:
        return self.end - self.lag - self.width - SLACK < t <= self.end + SLACK


def finished(truth: list[dict], offset: float) -> list[dict]:
    """Finished requests with ``t_end`` (epoch seconds of their last token, when the counters moved)."""
    return [{**r, "t_end": r["last_token"] + offset} for r in truth if r["finished"] and r["last_token"]]


def rate_bounds(requests: list[dict], window: Window, amount: Callable[[dict], float]) -> tuple[float, float]:
    low = sum(amount(r) for r in requests if window.sure(r["t_end"])) / window.width
    high = sum(amount(r) for r in requests if window.possible(r["t_end"]))
    return low, high / (window.width - 2 * window.scrape - 2 * SLACK)


def mediant_bounds(sure: Sequence[tuple[float, float]], edge: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least and greatest sum(num)/sum(den) over the sure pairs plus any subset of the edge pairs."""
    def extreme(better: Callable[[float, float], bool]) -> float:
        num, den = sum(n for n, _ in sure), sum(d for _, d in sure)
        for n, d in sorted(edge, key=lambda p: p[0] / p[1] if p[1] else 0, reverse=better(1, 0)):
            if d and (den == 0 or better(n / d, num / den)):
                num, den = num + n, den + d
        return num / den if den else math.nan
    return extreme(lambda a, b: a < b), extreme(lambda a, b: a > b)


def ratio_bounds(requests: list[dict], window: Window, num: Callable[[dict], float],
                 den: Callable[[dict], float]) -> tuple[float, float]:
    sure = [(num(r), den(r)) for r in requests if window.sure(r["t_end"])]
    edge = [(num(r), den(r)) for r in requests if window.possible(r["t_end"]) and not window.sure(r["t_end"])]
    return mediant_bounds(sure, edge)


def _quantile(values: list[float], q: float, side: int) -> float:
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    return ordered[math.floor(rank) if side < 0 else math.ceil(rank)]


def quantile_bounds(observations: list[tuple[float, float]], window: Window, q: float,
                    buckets: Sequence[float]) -> tuple[float, float]:
    """Where ``histogram_quantile(q, rate(...[w]))`` may land: the buckets of the lowest and highest true
    quantile over the sets between the sure and the possible observations ((time, value) pairs)."""
    sure = [v for t, v in observations if window.sure(t)]
    edge = [v for t, v in observations if window.possible(t) and not window.sure(t)]
    middle = _quantile(sure, q, 0)
    low = _quantile(sure + [v for v in edge if v <= middle], q, -1)
    high = _quantile(sure + [v for v in edge if v >= middle], q, 1)
    lower_edges = [b for b in buckets if b < low]
    upper_edges = [b for b in buckets if b >= high]
    return (lower_edges[-1] if lower_edges else 0.0), (upper_edges[0] if upper_edges else buckets[-1])


def itl_observations(truth: list[dict], offset: float) -> list[tuple[float, float]]:
    """Every inter-token latency the histogram observed: (epoch seconds, seconds), one per token."""
    return [(t + offset, value) for r in truth for t, value, count in r.get("itl", []) for _ in range(count)]


def ttft_observations(truth: list[dict], offset: float) -> list[tuple[float, float]]:
    return [(r["first_token"] + offset, r["first_token"] - r["arrival"]) for r in truth if r["first_token"]]


def counts_over(truth: list[dict], offset: float, start: float, end: float,
                state: Callable[[dict, float], bool]) -> tuple[int, int]:
    """Least and most requests in ``state`` at any moment of ``[start, end]`` (every 10 ms)."""
    counts = [sum(state(r, start + i * 0.01 - offset) for r in truth) for i in range(int((end - start) / 0.01) + 1)]
    return min(counts), max(counts)


def running(r: dict, t: float) -> bool:
    return r["prefill_start"] is not None and r["prefill_start"] <= t and (r["last_token"] is None or
                                                                        t <= r["last_token"] or not r["finished"])


def queued(r: dict, t: float) -> bool:
    return r["arrival"] <= t and (r["prefill_start"] is None or t < r["prefill_start"])
