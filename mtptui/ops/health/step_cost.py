"""The health verdict on the cost of one decode step: "same acceptance, slower steps (+14 %)".

Live: each decode line's step cost (``1000 × accept length / per-request tok/s``, mtptui.bench.step_cost) and its
accept length. Baseline: this host's bench runs at the load the server runs at now, on the same engine version,
with the same speculative shape and the same spec v2 setting (mtptui.engines.sglang.spec_v2); said only when it is
worse, and never while adaptive speculation runs another shape than configured.
"""

from __future__ import annotations

from typing import Any, Sequence

from mtptui.bench.stats import mean
from mtptui.bench.step_cost import judge_steps, request_step_ms
from mtptui.ops.baseline import Baseline, pick, spec_shape, speculative
from mtptui.ops.health.verdict import BAD, MIN_LIVE, Check

Run = dict[str, Any]


def step_samples(runs: Sequence[Run]) -> tuple[float, ...]:
    return tuple(value for run in runs for value in request_step_ms(run))


def run_accepts(runs: Sequence[Run]) -> tuple[float, ...]:
    return tuple(float(run["summary"]["accept_len"]) for run in runs
                 if isinstance((run.get("summary") or {}).get("accept_len"), (int, float)))


def step_baselines(runs: Sequence[Run], version: str | None, load: int | None, shape: tuple[str, ...],
                   spec_v2: bool | None) -> tuple[Baseline | None, Baseline | None]:
    """(step cost, acceptance) of the best runs of this shape and spec v2 setting at this load."""
    def same(run: Run) -> bool:
        fingerprint = run["fingerprint"]
        v2 = fingerprint.get("spec_v2")
        return speculative(run) and spec_shape(fingerprint.get("launch_flags") or {}) == shape and \
            (spec_v2 is None or v2 is None or v2 == spec_v2)

    return pick(runs, version, load, same, step_samples), pick(runs, version, load, same, run_accepts)


def step_cost_check(live_ms: Sequence[float], live_accept: Sequence[float], steps: Baseline | None,
                    accepts: Baseline | None) -> Check | None:
    """Bad when the steps cost more beyond noise at the same acceptance; None otherwise (nothing to say)."""
    if steps is None or accepts is None or steps.stale or len(live_ms) < MIN_LIVE:
        return None
    verdict = judge_steps(list(live_ms), list(steps.samples), mean(live_accept) if live_accept else None,
                          accepts.mean)
    if verdict is None or not verdict.slower:
        return None
    change = f"{verdict.change * 100:+.0f} %"
    return Check("step-cost", BAD, verdict.sentence(), f"steps {change} slower")
