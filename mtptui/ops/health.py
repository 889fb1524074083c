"""The health verdict of a running server: drift from the known-good profile, speed against this host's own
baseline, acceptance against what this speculative shape reached before, and whether speculation pays.

Each check is ok, bad or unknown (no figures to judge yet, or only a stale baseline); the verdict is bad when a
check is bad and ok only when every check holds. "Below the baseline" is the bench's noise-aware test
(``mtptui.bench.compare``): Welch's t-test of the live samples (one per decode line) against the baseline's
per-request samples, or the prediction test when one side has a single figure, and a change of at least the
bench's minimum effect without repeats. No Textual here: a headless command can print the same verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from mtptui.bench.compare import ALPHA, MIN_EFFECT_NO_REPEATS, prediction_p
from mtptui.bench.stats import mean, welch
from mtptui.ops.baseline import Baseline
from mtptui.ops.drift import Drift

OK, BAD, UNKNOWN = "ok", "bad", "unknown"
COLLAPSE_AT = 1.2  # accept length: the drafts are almost never accepted (as the fleet's health flag)
MIN_LIVE = 3  # decode lines of this startup before speed or acceptance is judged
MIN_EFFECT = MIN_EFFECT_NO_REPEATS


@dataclass(frozen=True)
class Check:
    """One judged aspect: ``text`` in full, ``short`` for a narrow line."""

    name: str
    state: str
    text: str
    short: str
    items: tuple[str, ...] = ()  # details, most telling first, shown as far as the width allows
    lead: str = ""  # what the short form says before its details


@dataclass(frozen=True)
class Health:
    """The checks in reading order and the actions that help (``diff``, ``restore``, ``bench``)."""

    checks: tuple[Check, ...]
    actions: tuple[str, ...] = field(default_factory=tuple)

    @property
    def state(self) -> str:
        states = {check.state for check in self.checks}
        return BAD if BAD in states else OK if states == {OK} else UNKNOWN


def signed_percent(change: float) -> str:
    return f"{change * 100:+.0f} %".replace("-", "−")


def below(live: Sequence[float], base: Sequence[float]) -> tuple[float, float | None]:
    """(change of the live mean against the base mean, two-sided p or None when nothing can be tested)."""
    change = mean(live) / mean(base) - 1 if mean(base) else 0.0
    if len(live) >= 2 and len(base) >= 2:
        return change, welch(live, base)[2]
    if len(live) >= 2:
        return change, prediction_p(base[0], live)
    return change, None


def significantly_below(live: Sequence[float], base: Sequence[float]) -> bool:
    change, p_value = below(live, base)
    return p_value is not None and p_value < ALPHA and change <= -MIN_EFFECT


def drift_check(drift: Drift | None) -> Check:
    if drift is None:
        return Check("drift", UNKNOWN, "running launch not known yet", "launch ?")
    if not drift.count:
        return Check("drift", OK, f"runs the known-good profile ({drift.profile})", "known-good")
    noun = "flag" if drift.count == 1 else "flags"
    return Check("drift", BAD, f"running ≠ known-good: {drift.count} {noun}", f"≠ known-good: {drift.count}",
                 tuple(str(item) for item in drift.items), "≠ known-good")


def speed_check(live: Sequence[float], baseline: Baseline | None) -> Check:
    if baseline is None:
        return Check("speed", UNKNOWN, "no baseline on this host yet", "no baseline")
    if baseline.stale:
        return Check("speed", UNKNOWN, f"baseline {baseline.mean:.0f} tok/s is SGLang {baseline.stale}'s: stale",
                     "baseline stale")
    if len(live) < MIN_LIVE:
        return Check("speed", UNKNOWN, f"measuring vs {baseline.mean:.0f} tok/s", "measuring")
    change = signed_percent(below(live, baseline.samples)[0])
    state = BAD if significantly_below(live, baseline.samples) else OK
    return Check("speed", state, f"{mean(live):.0f} tok/s vs {baseline.mean:.0f} ({change})",
                 f"{mean(live):.0f} tok/s ({change})")


def accept_check(live: Sequence[float], baseline: Baseline | None) -> Check | None:
    """Collapse (towards 1.0, or below what this shape reached before); None while nothing was accepted."""
    if len(live) < MIN_LIVE:
        return None
    now = mean(live)
    if now <= COLLAPSE_AT:
        return Check("accept", BAD, f"acceptance collapse: accept {now:.2f}", f"accept {now:.2f}!")
    if baseline is None or baseline.stale:
        return Check("accept", UNKNOWN, f"accept {now:.2f}, no earlier run of this shape", f"accept {now:.2f}")
    usual = f"accept {now:.2f} vs {baseline.mean:.2f} usual"
    if significantly_below(live, baseline.samples):
        change = signed_percent(below(live, baseline.samples)[0])
        return Check("accept", BAD, f"acceptance collapse: {usual} ({change})", f"accept {now:.2f}↓")
    return Check("accept", OK, usual, f"accept {now:.2f}")


def spec_cost_check(live: Sequence[float], no_spec: Baseline | None) -> Check | None:
    """Said only when speculation makes this host slower than it decodes without it."""
    if no_spec is None or no_spec.stale or len(live) < MIN_LIVE or not significantly_below(live, no_spec.samples):
        return None
    return Check("spec-cost", BAD, f"speculation costs more than it gains: {no_spec.mean:.0f} tok/s without it",
                 "spec slower")


def judge(drift: Drift | None, speed: Sequence[float], accept: Sequence[float], *, speed_base: Baseline | None,
          accept_base: Baseline | None = None, no_spec_base: Baseline | None = None,
          speculative: bool = True, down: str | None = None) -> Health:
    """The verdict on what runs now (``speculative``: the running launch decodes speculatively; ``down``:
    "crashed" or "stopped" when no server runs, and then the figures of the last run are not judged)."""
    if down is not None:
        return Health((Check("server", BAD, f"server {down}: nothing serves", f"server {down}"),
                       drift_check(drift)), ("restore",) if drift is not None else ())
    checks = [drift_check(drift), speed_check(speed, speed_base)]
    if speculative:
        checks += [c for c in (accept_check(accept, accept_base), spec_cost_check(speed, no_spec_base)) if c]
    actions = []
    if drift is not None and drift.count:
        actions += ["diff", "restore"]
    if speed_base is None or speed_base.stale:
        actions.append("bench")
    return Health(tuple(checks), tuple(actions))
