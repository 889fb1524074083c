"""The health flag of a fleet row, by the rules of the dashboard's health line, on Prometheus's figures.

- down: Prometheus cannot scrape the instance;
- acceptance collapse: the accept length falls towards 1.0 (at most ``COLLAPSE_AT``: the drafts are almost
  never accepted) or below what this instance reached in its own history;
- slowdown: a request decodes slower than in this instance's own history.

"Below its history" is the bench's noise-aware test (``mtptui.bench.compare.prediction_p``): is the figure now
inside the spread of the history's samples (one per rate window), and is the change at least ``MIN_EFFECT``?
A rule without the figures it needs says nothing; it never guesses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence, Union

from mtptui.bench.compare import ALPHA, MIN_EFFECT_NO_REPEATS, prediction_p_of
from mtptui.bench.stats import mean, variance

COLLAPSE_AT = 1.2
MIN_HISTORY = 5  # samples of the past needed before "below its history" can be said
MIN_EFFECT = MIN_EFFECT_NO_REPEATS


@dataclass(frozen=True)
class Health:
    """``state`` is ok, warn or down; ``reasons`` say why in the operator's words."""

    state: str
    reasons: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class History:
    """An instance's past samples of a figure, as their count, mean and sample variance."""

    count: int = 0
    mean: float = 0.0
    variance: float = 0.0

    @classmethod
    def of(cls, samples: Sequence[float]) -> "History":
        if not samples:
            return cls()
        return cls(len(samples), mean(samples), variance(samples) if len(samples) > 1 else 0.0)


Past = Union[History, Sequence[float]]


def _history(past: Past) -> History:
    return past if isinstance(past, History) else History.of(past)


def below_history(now: float | None, past: Past) -> tuple[float, float] | None:
    """(change, p) when ``now`` is significantly and materially below the ``past`` samples, else None."""
    history = _history(past)
    if now is None or history.count < MIN_HISTORY or history.mean <= 0:
        return None
    change = now / history.mean - 1
    if change > -MIN_EFFECT:
        return None  # not a material change: no test needed
    p_value = prediction_p_of(now, history.count, history.mean, history.variance)
    return (change, p_value) if p_value < ALPHA else None


def collapse(accept: float | None, past: Past, history: str) -> str | None:
    if accept is None:
        return None
    if accept <= COLLAPSE_AT:
        return f"acceptance collapse: accept length {accept:.2f}, the drafts are almost never accepted"
    below = below_history(accept, past)
    if below is None:
        return None
    return (f"acceptance collapse: accept length {accept:.2f} vs {_history(past).mean:.2f} over the last {history} "
            f"({below[0] * 100:+.0f} %, p = {below[1]:.2g})")


def slowdown(decode: float | None, past: Past, history: str) -> str | None:
    below = below_history(decode, past)
    if below is None or decode is None:
        return None
    return (f"slowdown: a request decodes at {decode:.1f} tok/s vs {_history(past).mean:.1f} over the last "
            f"{history} ({below[0] * 100:+.0f} %, p = {below[1]:.2g})")


def judge(up: bool | None, last_error: str, accept: tuple[float | None, Past],
          decode: tuple[float | None, Past], history: str) -> Health:
    """The row's flag from its target state, accept length and decode speed (each: now, past samples)."""
    if up is False:
        return Health("down", (f"down: {last_error}" if last_error else "down: the last scrape failed",))
    if up is None:
        return Health("down", ("not scraped yet",))
    reasons = tuple(r for r in (collapse(*accept, history), slowdown(*decode, history)) if r)
    return Health("warn" if reasons else "ok", reasons)
