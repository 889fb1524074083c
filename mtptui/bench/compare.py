"""Compare a run with the best earlier run of its class, and say whether it regressed, beyond run-to-run noise.

Baseline: among earlier runs with the same *class* (same target, model, sampling, prompts, concurrency, max
tokens, rate; see `fingerprint`), runs are grouped by *configuration* (server version + launch flags); the
group with the highest mean output tok/s is the baseline, and its best run is named. Its launch flags are
listed next to the current ones, so "40 now vs 70 before" comes with the flags that changed.

Verdict: the question is whether the difference is larger than what repeating the same run gives. The spread
of repeats (`--repeat K`) is the honest estimate of that noise; per-request spread inside one run
understates it (all requests share the server's state at that moment). So, in order of preference:

1. repeats on both sides: Welch's t-test on the run-level output tok/s (unequal variances, few runs);
2. repeats on one side only: a prediction test: is the single run inside the spread of the repeats?
   t = (x - mean) / (s * sqrt(1 + 1/n)), n - 1 degrees of freedom;
3. no repeats: Welch's t-test on the per-request decode tok/s of the two runs, labelled as within-run noise only,
   with a larger minimum effect to make up for the noise it cannot see.

A change is a regression (or improvement) only if it is significant (p < alpha) *and* at least the minimum
effect (2 %, or 5 % without repeats), so that a statistically detectable but practically irrelevant change
stays "no change". Too few numbers to test give "inconclusive".

Only runs measured on the same rig (SGLang version, GPUs, driver, TP size; mtptui.bench.rig) are baselines; the
others are stale, left out, and ``stale`` says so ("re-bench owed").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Sequence

from mtptui.bench.fingerprint import flag_differences
from mtptui.bench.history import same_class
from mtptui.bench.rig import rig_of, split_by_rig, stale_sentence
from mtptui.bench.stats import mean, t_two_sided_p, variance, welch

ALPHA = 0.05
MIN_EFFECT = 0.02
MIN_EFFECT_NO_REPEATS = 0.05

Verdict = Literal["regression", "improvement", "no-change", "inconclusive", "no-baseline"]


@dataclass
class Comparison:
    """The outcome of comparing the current run(s) with the history."""

    verdict: Verdict
    now_tok_s: float | None = None
    before_tok_s: float | None = None
    change: float | None = None
    p_value: float | None = None
    method: str = ""
    now_runs: int = 0
    before_runs: int = 0
    baseline: dict[str, Any] | None = None
    flag_diff: list[tuple[str, Any, Any]] = field(default_factory=list)
    reason: str | None = None  # why there is no baseline, when it is not simply the first run
    stale: str | None = None  # earlier runs of this workload left out: measured on another rig (re-bench owed)

    def sentence(self) -> str:
        """E.g. "40.1 tok/s now vs 70.3 before (-43.0 %): regression (p = 0.0004, Welch on 3 vs 3 runs)"."""
        if self.verdict == "no-baseline":
            return self.reason or "no earlier run of this workload on this target to compare with"
        change = "n/a" if self.change is None else f"{self.change * 100:+.1f} %"  # None: the baseline made 0 tok/s
        head = f"{self.now_tok_s:.1f} tok/s now vs {self.before_tok_s:.1f} before ({change})"
        p = "n/a" if self.p_value is None else f"{self.p_value:.2g}"
        return f"{head}: {self.verdict} (p = {p}, {self.method})"

    def to_json(self) -> dict[str, Any]:
        base = self.baseline or {}
        return {
            "verdict": self.verdict, "now_tok_s": self.now_tok_s, "before_tok_s": self.before_tok_s,
            "change": self.change, "p_value": self.p_value, "method": self.method, "now_runs": self.now_runs,
            "before_runs": self.before_runs, "baseline_id": base.get("id"),
            "baseline_recorded_at": base.get("recorded_at"),
            "baseline_output_tok_s": (base.get("summary") or {}).get("output_tok_s"),
            "flag_diff": [{"flag": n, "now": a, "before": b} for n, a, b in self.flag_diff],
            "reason": self.reason, "stale": self.stale,
        }


def _tok_s(run: dict[str, Any]) -> float | None:
    value = (run.get("summary") or {}).get("output_tok_s")
    return float(value) if isinstance(value, (int, float)) else None


def _speeds(runs: Sequence[dict[str, Any]]) -> list[float]:
    """The output tok/s of the runs that have one."""
    return [speed for speed in map(_tok_s, runs) if speed is not None]


def _rank(run: dict[str, Any]) -> float:
    """A run's output tok/s to pick the best by; a run without one ranks last."""
    speed = _tok_s(run)
    return -math.inf if speed is None else speed


def _decode_speeds(run: dict[str, Any]) -> list[float]:
    return [r["decode_tok_s"] for r in run.get("requests") or []
            if r.get("ok") and isinstance(r.get("decode_tok_s"), (int, float))]


def best_group(earlier: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The earlier runs of the configuration with the highest mean output tok/s."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for run in earlier:
        if _tok_s(run) is not None:
            groups.setdefault(run["config_key"], []).append(run)
    if not groups:
        return []
    return max(groups.values(), key=lambda runs: mean(_speeds(runs)))


def prediction_p(single: float, repeats: Sequence[float]) -> float:
    """Two-sided p that `single` comes from the distribution the `repeats` were drawn from."""
    return prediction_p_of(single, len(repeats), mean(repeats), variance(repeats))


def prediction_p_of(single: float, count: int, centre: float, sample_variance: float) -> float:
    """``prediction_p`` from the repeats' count, mean and sample variance (what Prometheus can give)."""
    spread = math.sqrt(max(sample_variance, 0.0) * (1 + 1 / count))
    diff = single - centre
    if spread == 0:
        return 1.0 if diff == 0 else 0.0
    return t_two_sided_p(diff / spread, count - 1)


class _Test(NamedTuple):
    now: float
    before: float
    p_value: float
    method: str
    min_effect: float


def _test(now: list[dict[str, Any]], before: list[dict[str, Any]], min_effect: float) -> _Test | None:
    """The best test the data allows (see the module docstring); None when nothing can be tested."""
    a, b = _speeds(now), _speeds(before)
    if len(a) >= 2 and len(b) >= 2:
        return _Test(mean(a), mean(b), welch(a, b)[2], f"Welch t-test on {len(a)} vs {len(b)} runs", min_effect)
    if len(b) >= 2:
        return _Test(a[0], mean(b), prediction_p(a[0], b), f"one run vs the spread of {len(b)} repeats", min_effect)
    if len(a) >= 2:
        return _Test(mean(a), b[0], prediction_p(b[0], a), f"the spread of {len(a)} repeats vs one run", min_effect)
    da, db = _decode_speeds(now[0]), _decode_speeds(before[0])
    if len(da) < 2 or len(db) < 2:
        return None
    return _Test(mean(da), mean(db), welch(da, db)[2],
                 "no repeats: Welch on per-request decode tok/s, within-run noise only", MIN_EFFECT_NO_REPEATS)


def compare(current: Sequence[dict[str, Any]], history: Sequence[dict[str, Any]], *, alpha: float = ALPHA,
            min_effect: float = MIN_EFFECT) -> Comparison:
    """Compare the run(s) just made (repeats of one configuration, as stored) with the earlier ones."""
    ids = {run.get("id") for run in current}
    earlier = [r for r in same_class(list(history), current[0]["fingerprint"]) if r.get("id") not in ids]
    rig = rig_of(current[0]["fingerprint"])
    earlier, stale = split_by_rig(earlier, rig)
    note = stale_sentence(stale, rig)
    group = best_group(earlier)
    now = [r for r in current if _tok_s(r) is not None]
    if not group or not now:
        return Comparison("no-baseline", now_runs=len(now), reason=note if not earlier else None, stale=note)
    baseline = max(group, key=_rank)
    now_tok_s, before_tok_s = mean(_speeds(now)), mean(_speeds(group))
    result = Comparison("inconclusive", now_tok_s, before_tok_s, now_runs=len(now), before_runs=len(group),
                        baseline=baseline, stale=note,
                        flag_diff=flag_differences(current[0]["fingerprint"], baseline["fingerprint"]))
    result.change = now_tok_s / before_tok_s - 1 if before_tok_s else None
    tested = _test(now, group, min_effect)
    if tested is None or result.change is None:
        result.method = "too few successful requests to test"
        return result
    result.p_value, result.method = tested.p_value, tested.method
    effect = tested.now / tested.before - 1 if tested.before else 0.0
    if tested.p_value < alpha and abs(effect) >= tested.min_effect:
        result.verdict = "regression" if effect < 0 else "improvement"
    else:
        result.verdict = "no-change"
    return result
