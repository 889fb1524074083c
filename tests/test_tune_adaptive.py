"""The tune's adaptive proposal: when the best steps differ by concurrency, an adaptive profile starting at the best
steps of the first concurrency, its candidates the measured ladder; one more arm where the release's own
candidates hold the best steps, a config file to write otherwise; nothing when one setting wins everywhere."""

from __future__ import annotations

from mtptui.ops.tune.adaptive import NAME, adaptive_arms, best_steps, propose
from mtptui.ops.tune.report import render_run
from mtptui.engines.sglang.lint import lint_profile
from tests.test_tune import BASE, HOST, MISSION, measured_grid, tune_run

# At c=16 the verify of deep drafts costs more than they bring: one step is the best there.
SHALLOW_AT_16 = {"steps1-topk1-draft2": (35.0, 520.0), "steps2-topk1-draft3": (46.5, 450.0),
                 "steps3-topk1-draft4": (55.0, 420.0), "steps4-topk1-draft5": (55.6, 380.0)}


def test_different_best_steps_propose_an_adaptive_profile_the_release_can_run_as_it_is() -> None:
    made = measured_grid(SHALLOW_AT_16)
    assert best_steps(made, [1, 16]) == {1: 3, 16: 1}
    proposal = propose(made, [1, 16], BASE, "0.5.12.post1")
    assert proposal is not None and proposal.runnable and proposal.ladder == (1, 2, 3, 4)
    flags = proposal.profile.flags
    assert (flags["speculative-adaptive"], flags["speculative-num-steps"], flags["speculative-eagle-topk"]) == \
        (True, 3, 1) and "speculative-num-draft-tokens" not in flags
    assert proposal.candidates == (1, 3, 7)  # the server adapts between the release's own, not the ladder
    assert proposal.sentence() == ("the best steps differ by concurrency (c=1: steps 3, c=16: steps 1): an adaptive "
                                   "profile could serve both, starting at 3 (the release's own candidates 1,3,7 "
                                   "hold those steps; measured ladder 1,2,3,4)")
    assert proposal.to_json()["candidates"] == [1, 3, 7] and proposal.to_json()["ladder"] == [1, 2, 3, 4]
    _, findings = lint_profile(proposal.profile, "0.5.12.post1")
    assert not [f for f in findings if f.stops_server] and not any("turns adaptive" in f.message for f in findings)


def test_best_steps_outside_the_releases_candidates_need_a_config_file() -> None:
    made = measured_grid({**SHALLOW_AT_16, "steps2-topk1-draft3": (46.5, 560.0), "steps4-topk1-draft5": (62.0, 380.0)})
    proposal = propose(made, [1, 16], BASE, "0.5.12.post1")
    assert best_steps(made, [1, 16]) == {1: 4, 16: 2} and not proposal.runnable
    assert proposal.config == {"candidate_steps": [1, 2, 3, 4]} and proposal.candidates == (1, 2, 3, 4)
    assert proposal.sentence().endswith('it needs --speculative-adaptive-config with {"candidate_steps": [1, 2, 3, 4]}')
    assert propose(made, [1, 16], BASE, "0.5.23").config == {"1": {"candidate_steps": [1, 2, 3, 4]}}


def test_one_setting_best_everywhere_proposes_nothing() -> None:
    assert propose(measured_grid(MISSION), [1, 16], BASE, "0.5.12.post1") is None


def test_the_tune_measures_it_as_one_more_arm_with_adaptive_and_says_it_either_way() -> None:
    made = measured_grid(SHALLOW_AT_16)
    run = tune_run(made, lambda: 0.0)
    plan = run.plan
    plan.host = HOST.model_copy(update={"profiles": dict(HOST.profiles)})  # the tune's own copy, as plan_tune's
    assert adaptive_arms(plan) == [] and plan.proposal is not None  # proposed only
    assert "adaptive: the best steps differ by concurrency" in render_run(run)
    assert run.to_json()["adaptive"]["best_steps"] == {"1": 3, "16": 1}
    plan.adaptive = True
    (arm,) = adaptive_arms(plan)
    assert (arm.name, arm.status, arm.label) == (NAME, "pending", "adaptive from steps 3") and plan.arms[-1] is arm
    assert plan.host.profiles[NAME] is arm.profile and NAME not in HOST.profiles
