"""The tune's parts offline: the grid, the arms (derived and linted), the verdict in words, the canary, the ETA,
the JSON contract. The tune itself, over SSH with restarts, is tests/test_lab_tune.py."""

from __future__ import annotations

import random

import pytest

from mtptui.bench import history
from mtptui.config import load_host_file
from mtptui.errors import UserError
from mtptui.ops.tune.arms import Arm, Measured, make_arms
from mtptui.ops.tune.canary import PROMPTS, CanaryOutputs, judge as judge_canary
from mtptui.ops.tune.grid import parse_concurrency, parse_grid
from mtptui.ops.tune.plan import Original, TunePlan, Workload
from mtptui.ops.tune.report import render_run
from mtptui.ops.tune.state import TuneRun
from mtptui.ops.tune.verdict import judge, pareto, pick_best
from tests.conftest import CONFIGS
from tests.test_bench_history import run as bench_run

HOST = load_host_file(CONFIGS / "ct129.toml")
BASE = HOST.profile("restored")


def arms(grid=None) -> list[Arm]:
    return make_arms(BASE, "restored", parse_grid(grid), HOST.sglang_version)


def test_the_default_grid_is_steps_one_to_four_with_draft_tokens_left_to_sglang() -> None:
    made = arms()
    assert [a.name for a in made] == ["steps1-topk1-draft2", "steps2-topk1-draft3", "steps3-topk1-draft4",
                                      "steps4-topk1-draft5"]
    assert [a.label for a in made] == ["steps 1 / draft 2", "steps 2 / draft 3", "steps 3 / draft 4",
                                       "steps 4 / draft 5"]
    assert all(a.status == "pending" and a.auto == ("speculative-num-draft-tokens",) for a in made)
    rest = {k: v for k, v in BASE.flags.items() if k != "speculative-num-draft-tokens"}  # auto: left out
    assert [a.profile.flags for a in made] == [{**rest, "speculative-num-steps": s} for s in (1, 2, 3, 4)]
    assert made[0].profile.env == BASE.env and made[0].profile.model_path == BASE.model_path


def test_points_sglang_resolves_alike_are_one_arm_and_refused_ones_say_why() -> None:
    assert [a.name for a in arms(["steps=3", "draft=4,auto"])] == ["steps3-draft4"]
    refused = arms(["steps=3", "mamba-scheduler-strategy=extra_buffer,no_buffer"])
    assert [(a.name, a.status) for a in refused] == [("steps3-mamba-scheduler-strategy=extra_buffer", "pending"),
                                                     ("steps3-mamba-scheduler-strategy=no_buffer", "refused")]
    assert refused[1].reason.startswith("SGLang would refuse it: ValueError: Speculative decoding for "
                                        "Qwen3_5ForCausalLM is not compatible with radix cache")


@pytest.mark.parametrize(("grid", "message"), [
    (["steps"], "--grid takes NAME=V1,V2,... (e.g. steps=1,2,3), not 'steps'"),
    (["steps=1", "steps=2"], "--grid names steps twice"),
    (["st eps=1"], "--grid: 'st eps' is not a flag name (steps, topk, draft or an SGLang flag without --)"),
    (["steps=" + ",".join(map(str, range(1, 9))), "draft=" + ",".join(map(str, range(1, 10)))],
     "--grid makes 72 arms; at most 64 (each one is a restart)"),
])
def test_a_bad_grid_is_one_sentence(grid, message) -> None:
    with pytest.raises(UserError) as caught:
        parse_grid(grid)
    assert str(caught.value) == message


def test_concurrency_levels_are_sorted_and_checked() -> None:
    assert parse_concurrency("16,1,4,4") == [1, 4, 16]
    assert parse_concurrency(None) == parse_concurrency("") == [1, 4, 16]
    for bad in (",", "0", "1,x", "2000"):
        with pytest.raises(UserError, match="--concurrency takes numbers from 1 to 1024"):
            parse_concurrency(bad)


def measured(arm: Arm, concurrency: int, tok_s: float, per_request: float, spread: float = 0.01) -> None:
    """An arm's stored run at ``concurrency``: per-request speeds scattered by ``spread``."""
    made = bench_run(tok_s, dict(arm.flags), random.Random(len(arm.runs) + int(tok_s)), spread, concurrency=concurrency)
    arm.runs.append(history.append_run(made))
    arm.results.append(Measured(concurrency, tok_s, per_request, None, 120.0, 1000 / per_request))


def measured_grid(speeds: dict[str, tuple[float, float]]) -> list[Arm]:
    """The default grid's arms done, with output tok/s at c=1 and c=16."""
    made = arms()
    for arm in made:
        c1, c16 = speeds[arm.name]
        measured(arm, 1, c1, c1)
        measured(arm, 16, c16, c16 / 16)
        arm.status, arm.canary = "done", "pass"
    return made


MISSION = {"steps1-topk1-draft2": (35.0, 308.0), "steps2-topk1-draft3": (46.5, 390.0),
           "steps3-topk1-draft4": (55.0, 444.0), "steps4-topk1-draft5": (55.6, 424.0)}
STEPS1 = {"speculative-num-steps": 1, "speculative-eagle-topk": 1, "speculative-num-draft-tokens": 2}


def test_a_deeper_arm_within_noise_is_not_the_best_and_the_verdict_says_it_in_words() -> None:
    made = measured_grid(MISSION)
    verdict = judge(made, [1, 16], STEPS1)
    assert verdict.best.name == "steps3-topk1-draft4"
    assert verdict.sentence == ("steps 3 / draft 4: 55 tok/s at c=1, +57 % over steps 1 / draft 2; "
                                "steps 4 / draft 5 adds nothing within noise")


def test_a_deeper_arm_clearly_faster_is_the_best_and_throughput_at_high_concurrency_is_named() -> None:
    made = measured_grid({**MISSION, "steps4-topk1-draft5": (62.0, 424.0), "steps2-topk1-draft3": (46.5, 460.0)})
    verdict = judge(made, [1, 16])
    assert verdict.best.name == "steps4-topk1-draft5"
    assert verdict.sentence.startswith("steps 4 / draft 5: 62 tok/s at c=1, +77 % over steps 1 / draft 2")
    assert "at c=16 steps 2 / draft 3 gives the most throughput (460 vs 424 tok/s)" in verdict.notes


def test_an_arm_whose_canary_failed_is_never_the_best() -> None:
    made = measured_grid({**MISSION, "steps4-topk1-draft5": (70.0, 500.0)})
    made[3].canary = "fail"
    verdict = judge(made, [1, 16])
    assert verdict.best.name == "steps3-topk1-draft4"
    assert "steps 4 / draft 5 changed the greedy output (canary), so it is not a candidate" in verdict.notes
    assert all(point[0] is not made[3] for point in pareto(made))


def test_no_arm_qualifies_when_none_ran_to_the_end() -> None:
    made = arms()
    made[0].status, made[0].reason = "failed", "profile steps1-topk1-draft2 failed on lab: crashed"
    verdict = judge(made, [1])
    assert verdict.best is None and pick_best(made, 1) is None
    assert verdict.notes == ["steps 1 / draft 2 failed: profile steps1-topk1-draft2 failed on lab: crashed"]


def test_the_pareto_front_keeps_the_points_nothing_beats_on_both_axes() -> None:
    made = measured_grid(MISSION)
    front = {(arm.name, c) for arm, c, _, _ in pareto(made)}
    assert front == {("steps3-topk1-draft4", 16), ("steps4-topk1-draft5", 1)}


def test_the_canary_passes_equal_outputs_and_names_where_they_part() -> None:
    reference = CanaryOutputs(("a b c", "d e", "f"))
    assert judge_canary(reference, None) == ("pass", "the reference: the other arms' outputs are compared with these")
    assert judge_canary(CanaryOutputs(("a b c", "d e", "f")), reference) == ("pass", None)
    assert judge_canary(CanaryOutputs(("a b c", "d x", "f")), reference) == (
        "fail", f"greedy output of {PROMPTS[1].name} differs from the reference arm's from character 2")
    assert judge_canary(CanaryOutputs(("a b c", None, "f")), reference) == (
        "skipped", f"the canary prompt {PROMPTS[1].name} failed")


def tune_run(made: list[Arm], clock) -> TuneRun:
    original = Original("redeploy-1step", HOST.profile("redeploy-1step"), True, "running:pid 42")
    plan = TunePlan(HOST, "restored", made, Workload((1, 16), 4, 64), "original", original)
    return TuneRun(plan, clock)


def test_the_eta_is_the_mean_arm_times_the_arms_left_plus_the_final_restart() -> None:
    now = [100.0]
    made = arms()
    run = tune_run(made, lambda: now[0])
    run.state = "running"
    assert run.eta_s() is None  # nothing to go by before the first arm ends
    made[0].status, made[0].started, made[0].ended = "done", 0.0, 30.0
    made[1].status, made[1].started = "running", 90.0
    run.restart_s = [3.0]
    assert run.eta_s() == pytest.approx((30 - 10) + 2 * 30 + 3)


def test_the_json_is_the_issues_contract() -> None:
    made = measured_grid(MISSION)
    run = tune_run(made, lambda: 0.0)
    run.verdict, run.kept, run.restore = judge(made, [1, 16], STEPS1), "original", "ct129 runs redeploy-1step again"
    data = run.to_json()
    assert {"host", "engine", "base_profile", "sglang_version", "arms", "best", "kept"} <= set(data)
    assert (data["host"], data["engine"], data["base_profile"], data["best"], data["kept"]) == (
        "ct129", "sglang", "restored", "steps3-topk1-draft4", "original")
    arm = data["arms"][2]
    assert {"name", "flags", "status", "reason", "results", "canary"} <= set(arm)
    assert arm["flags"] == {"speculative-num-steps": 3, "speculative-eagle-topk": 1, "speculative-num-draft-tokens": 4}
    assert set(arm["results"][0]) >= {"concurrency", "output_tok_s", "request_tok_s", "accept_len", "ttft_ms",
                                      "tpot_ms"}
    text = render_run(run)
    assert "steps 3 / draft 4 *" in text and text.splitlines()[0].split() == [
        "arm", "status", "c=1", "tok/s", "c=16", "tok/s", "accept", "TTFT", "ms", "TPOT", "ms", "canary"]


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--grid", "steps"], 1, "--grid takes NAME=V1,V2,... (e.g. steps=1,2,3), not 'steps'"),
    (["--concurrency", "0"], 1, "--concurrency takes numbers from 1 to 1024 separated by commas, not '0'"),
    (["--base", "nope"], 2, "host 'demo' has no profile 'nope' (profiles: redeploy-1step, restored)"),
    (["--prompts", "nope"], 1, None),
    (["--known-good"], 1, "--known-good marks the profile --save-best saves: name it with --save-best NAME"),
    (["--save-best", "a b"], 1, "--save-best takes a profile name of letters, digits, - and _, not 'a b'"),
])
def test_bad_input_is_one_sentence_before_anything_is_asked_of_the_host(capsys, args, code, message) -> None:
    """The demo host (no SSH): every check here comes before the first command on the host."""
    from mtptui.cli.main import main

    assert main(["tune", "demo", "--yes", *args]) == code
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.strip() == f"mtptui: {message}" if message else err.startswith("mtptui: ")
