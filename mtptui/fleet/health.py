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
from typing import Sequence

from mtptui.bench.compare import ALPHA, MIN_EFFECT_NO_REPEATS, prediction_p
from mtptui.bench.stats import mean

COLLAPSE_AT = 1.2
MIN_HISTORY = 5  # samples of the past needed before "below its history" can be said
MIN_EFFECT = MIN_EFFECT_NO_REPEATS


@dataclass(frozen=True)
class Health:
    """``state`` is ok, warn or down; ``reasons`` say why in the operator's words."""

    state: str
    reasons: tuple[str, ...] = field(default_factory=tuple)


def below_history(now: float | None, past: Sequence[float]) -> tuple[float, float] | None:
    """(change, p) when ``now`` is significantly and materially below the ``past`` samples, else None."""
    if now is None or len(past) < MIN_HISTORY:
        return None
    before = mean(past)
    if before <= 0:
        return None
    change = now / before - 1
    p_value = prediction_p(now, past)
    return (change, p_value) if change <= -MIN_EFFECT and p_value < ALPHA else None


def collapse(accept: float | None, past: Sequence[float], history: str) -> str | None:
    if accept is None:
        return None
    if accept <= COLLAPSE_AT:
        return f"acceptance collapse: accept length {accept:.2f}, the drafts are almost never accepted"
    below = below_history(accept, past)
    if below is None:
        return None
    return (f"acceptance collapse: accept length {accept:.2f} vs {mean(past):.2f} over the last {history} "
            f"({below[0] * 100:+.0f} %, p = {below[1]:.2g})")


def slowdown(decode: float | None, past: Sequence[float], history: str) -> str | None:
    below = below_history(decode, past)
    if below is None or decode is None:
        return None
    return (f"slowdown: a request decodes at {decode:.1f} tok/s vs {mean(past):.1f} over the last {history} "
            f"({below[0] * 100:+.0f} %, p = {below[1]:.2g})")


def judge(up: bool | None, last_error: str, accept: tuple[float | None, Sequence[float]],
          decode: tuple[float | None, Sequence[float]], history: str) -> Health:
    """The row's flag from its target state, accept length and decode speed (each: now, past samples)."""
    if up is False:
        return Health("down", (f"down: {last_error}" if last_error else "down: the last scrape failed",))
    if up is None:
        return Health("down", ("not scraped yet",))
    reasons = tuple(r for r in (collapse(*accept, history), slowdown(*decode, history)) if r)
    return Health("warn" if reasons else "ok", reasons)
