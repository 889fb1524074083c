"""Adaptive speculation as a tune's answer: when the best steps differ by concurrency, one launch may serve both.

After the grid's arms ran, the best arm at each concurrency (the verdict's rule, mtptui.ops.tune.verdict) names
its draft steps. When they differ (steps 3 at c=1, steps 1 at c=16: deeper drafts cost more verify work in a big
batch), an adaptive profile is proposed: the base profile with ``--speculative-adaptive``, starting at the best
steps of the first concurrency, its candidate steps the measured ladder (the steps of every arm that ran). It
runs as one more arm (``--adaptive``) when the release's own candidates (mtptui.engines.sglang.adaptive) hold the best
steps of every concurrency, so no config file must be written on the host; otherwise the proposal says which
config file it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.config.models import LaunchProfile
from mtptui.ops.tune.arms import Arm
from mtptui.ops.tune.proposal import STEPS, Proposal
from mtptui.engines.sglang.adaptive import DEFAULT_CANDIDATES, DEFAULT_TIERS, TIERED

if TYPE_CHECKING:
    from mtptui.ops.tune.plan import TunePlan

NAME = "adaptive"


def arm_steps(arm: Arm) -> int | None:
    value = arm.flags.get(STEPS)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def best_steps(arms: list[Arm], concurrencies: list[int]) -> dict[int, int]:
    """The draft steps of the best arm at each concurrency (concurrencies without a best left out)."""
    from mtptui.ops.tune.verdict import pick_best

    grid = [arm for arm in arms if arm.name != NAME]
    out: dict[int, int] = {}
    for concurrency in concurrencies:
        best = pick_best(grid, concurrency)
        steps = arm_steps(best) if best is not None else None
        if steps is not None:
            out[concurrency] = steps
    return out


def default_candidates(version: str, batch: int) -> tuple[int, ...]:
    """The candidates the release adapts between at a batch size without a config file."""
    if version not in TIERED:
        return DEFAULT_CANDIDATES
    return ([tier for tier in DEFAULT_TIERS if tier.batch_size <= batch] or [DEFAULT_TIERS[0]])[-1].candidates


def propose(arms: list[Arm], concurrencies: list[int], base: LaunchProfile, version: str) -> Proposal | None:
    """The adaptive proposal, or None when one setting is best everywhere (or too little was measured)."""
    best = best_steps(arms, concurrencies)
    if len(set(best.values())) < 2:
        return None
    ladder = tuple(sorted({s for arm in arms if arm.status == "done" and (s := arm_steps(arm)) is not None}))
    covered = all(steps in default_candidates(version, c) for c, steps in best.items())
    config = None if covered else ({"candidate_steps": list(ladder)} if version not in TIERED
                                   else {"1": {"candidate_steps": list(ladder)}})
    flags = {**base.flags, "speculative-adaptive": True, STEPS: best[min(best)], "speculative-eagle-topk": 1}
    flags.pop("speculative-num-draft-tokens", None)  # adaptive speculation: draft tokens = steps + 1
    profile = base.model_copy(update={"flags": flags, "note": "tune: adaptive speculation"})
    release = tuple(sorted({s for c in best for s in default_candidates(version, c)}))
    return Proposal(best, ladder, profile, config, release)


def adaptive_arms(plan: TunePlan) -> list[Arm]:
    """After the grid: the proposal (kept on the plan), and its arm when the tune measures it (``--adaptive``)
    and it needs no config file; the arm's profile joins the tune's host so the restart finds it by name. None for
    a tune whose answer is an engine's own ladder (arms by profile, vLLM's grid): its arms' steps are of several
    engines or not SGLang's."""
    if plan.engine_ladder:
        return []
    concurrencies = list(plan.workload.concurrency)
    plan.proposal = propose(plan.arms, concurrencies, plan.host.profiles[plan.base], plan.host.sglang_version)
    if not plan.adaptive or plan.proposal is None or not plan.proposal.runnable:
        return []
    proposal = plan.proposal
    flags = {STEPS: proposal.profile.flags[STEPS], "speculative-adaptive": True}
    arm = Arm(NAME, f"adaptive from steps {flags[STEPS]}", flags, (), proposal.profile)
    plan.host.profiles[NAME] = proposal.profile
    plan.arms.append(arm)
    return [arm]
