"""A tune across engines, offline: the host file naming another engine's server, the arms that are profiles of
either engine (labels, refusals), and the answer in one sentence with the margin or "within noise". The tune
itself, SGLang against the real vLLM under real systemd, is tests/test_lab_tune_engines.py."""

from __future__ import annotations

import json
import tomllib

import pytest

from mtptui.config.loader import load_host_file
from mtptui.errors import ConfigError, UserError
from mtptui.ops.tune.engines_verdict import judge_profiles
from mtptui.ops.tune.ladder import ladder_of
from mtptui.ops.tune.plan import Original, TunePlan, Workload
from mtptui.ops.tune.profile_arms import parse_arms, profile_arms
from mtptui.ops.tune.profile_grid import grid_over_profiles
from mtptui.ops.tune.report import render_run
from mtptui.ops.tune.state import TuneRun
from tests.conftest import CONFIGS
from tests.test_tune import measured

VLLM = {"api_url": "http://127.0.0.1:8000", "server": {"manager": "systemd", "unit": "vllm-qwen.service"},
        "log": {"kind": "journal"}}


def vllm_profile(tokens: int, method: str = "mtp") -> dict:
    return {"engine": "vllm", "model_path": "/data/models/Qwen3.6-27B", "python": "/opt/vllm/bin/python",
            "flags": {"tensor-parallel-size": 2, "port": 8000,
                      "speculative-config": json.dumps({"method": method, "num_speculative_tokens": tokens})}}


def host_file(tmp_path, **extra):
    data = tomllib.loads((CONFIGS / "ct129.toml").read_text())
    data["engines"] = {"vllm": VLLM}
    data["profiles"]["vllm-mtp3"] = vllm_profile(3)
    data["profiles"]["vllm-bad"] = vllm_profile(3, "no-such-method")
    data.update(extra)
    import tomli_w

    path = tmp_path / "ct129.toml"
    path.write_text(tomli_w.dumps(data))
    return path


def host_file_with_mtp1(tmp_path):
    """``host_file`` with one more vLLM profile, MTP with one token (a cheaper vLLM arm)."""
    import tomli_w

    path = host_file(tmp_path)
    data = tomllib.loads(path.read_text())
    data["profiles"]["vllm-mtp1"] = vllm_profile(1)
    path.write_text(tomli_w.dumps(data))
    return path


def test_a_host_names_another_engines_server_and_is_seen_running_it(tmp_path) -> None:
    host = load_host_file(host_file(tmp_path))
    assert host.engine_of("restored") == "sglang" and host.engine_of("vllm-mtp3") == "vllm"
    view = host.for_engine("vllm")
    assert (view.engine, view.api_url, view.server.unit, view.log.kind) == (
        "vllm", "http://127.0.0.1:8000", "vllm-qwen.service", "journal")
    assert sorted(view.profiles) == ["vllm-bad", "vllm-mtp3"] and view.known_good is None
    assert host.for_engine("sglang") is host
    assert host.default_profile() == "restored"


def test_a_profile_of_an_engine_the_host_does_not_place_is_one_sentence(tmp_path) -> None:
    path = host_file(tmp_path)
    data = tomllib.loads(path.read_text())
    del data["engines"]
    import tomli_w

    path.write_text(tomli_w.dumps(data))
    with pytest.raises(ConfigError) as caught:
        load_host_file(path)
    assert "profile 'vllm-mtp3' launches vllm, but the host names no [engines.vllm]" in str(caught.value)
    with pytest.raises(ConfigError, match="names no \\[engines.vllm\\]"):
        load_host_file(CONFIGS / "ct129.toml").for_engine("vllm")


def test_profile_arms_name_their_engine_and_speculation_and_refused_ones_say_why(tmp_path) -> None:
    host = load_host_file(host_file(tmp_path))
    made = profile_arms(host, parse_arms("restored, redeploy-1step,vllm-mtp3,vllm-bad"))
    assert [(a.name, a.engine, a.status) for a in made] == [
        ("restored", "sglang", "pending"), ("redeploy-1step", "sglang", "pending"), ("vllm-mtp3", "vllm", "pending"),
        ("vllm-bad", "vllm", "refused")]
    assert [a.label for a in made[:3]] == ["SGLang steps 3 / draft 4", "SGLang steps 1 / draft 2",
                                           "vLLM mtp 3"]
    assert made[2].flags == {"speculative-num-steps": 3, "speculative-eagle-topk": 1,
                             "speculative-num-draft-tokens": 3}
    assert made[3].label == "vLLM vllm-bad"
    assert made[3].reason.startswith("vLLM would refuse it: vLLM refuses --speculative-config method: ")
    with pytest.raises(UserError, match="--arms takes profile names"):
        parse_arms(" , ")
    with pytest.raises(ConfigError, match="has no profile 'nope'"):
        profile_arms(host, ["nope"])


def measured_arms(tmp_path, speeds: dict[str, tuple[float, float]]):
    host = load_host_file(host_file(tmp_path))
    made = profile_arms(host, list(speeds))
    for arm in made:
        c1, c4 = speeds[arm.name]
        measured(arm, 1, c1, c1)
        measured(arm, 4, c4, c4 / 4)
        arm.status, arm.canary = "done", "pass"
    return host, made


def test_the_answer_names_the_engine_and_setting_with_the_margin_and_noise_at_load(tmp_path) -> None:
    _, made = measured_arms(tmp_path, {"restored": (53.0, 180.0), "vllm-mtp3": (47.0, 181.0)})
    verdict = judge_profiles(made, [1, 4], "restored", "sglang")
    assert verdict.best.name == "restored"
    assert verdict.sentence == ("Stay on SGLang steps 3 / draft 4: 53 tok/s at c=1, vLLM mtp 3 is 11 % slower; "
                                "at c=4 they are within noise")
    assert "the greedy canary compares arms within an engine only: outputs of SGLang and vLLM are not comparable" \
        in verdict.notes


def test_the_other_engine_clearly_faster_is_a_switch_and_a_turn_at_load_is_named(tmp_path) -> None:
    _, made = measured_arms(tmp_path, {"redeploy-1step": (35.0, 120.0), "vllm-mtp3": (50.0, 100.0)})
    verdict = judge_profiles(made, [1, 4], "redeploy-1step", "sglang")
    assert verdict.best.name == "vllm-mtp3"
    assert verdict.sentence == ("Switch to vLLM mtp 3: 50 tok/s at c=1, SGLang steps 1 / draft 2 is 30 % slower; "
                                "at c=4 SGLang steps 1 / draft 2 leads (120 tok/s, +20 %)")


def test_within_noise_at_the_first_concurrency_the_original_stays(tmp_path) -> None:
    _, made = measured_arms(tmp_path, {"restored": (52.0, 180.0), "vllm-mtp3": (52.5, 180.0)})
    verdict = judge_profiles(made, [1], "restored", "sglang")
    assert verdict.best.name == "restored"
    assert verdict.sentence == "Stay on SGLang steps 3 / draft 4: 52 tok/s at c=1, vLLM mtp 3 is within noise"


def test_a_faster_arm_of_the_same_engine_passed_over_within_noise_is_named(tmp_path) -> None:
    """The cheaper vLLM arm is kept within noise of the faster one: the sentence says the faster adds nothing."""
    host = load_host_file(host_file_with_mtp1(tmp_path))
    made = profile_arms(host, ["restored", "vllm-mtp1", "vllm-mtp3"])
    for arm, c1 in zip(made, (40.0, 50.0, 51.5)):
        measured(arm, 1, c1, c1)
        arm.status, arm.canary = "done", "pass"
    verdict = judge_profiles(made, [1], "restored", "sglang")
    assert verdict.best.name == "vllm-mtp1"
    assert verdict.sentence == ("Switch to vLLM mtp 1: 50 tok/s at c=1, vLLM mtp 3 adds nothing within noise, "
                                "SGLang steps 3 / draft 4 is 20 % slower")


def test_the_report_answers_first_and_the_json_holds_engines_and_the_canary_scope(tmp_path) -> None:
    host, made = measured_arms(tmp_path, {"restored": (53.0, 180.0), "vllm-mtp3": (47.0, 181.0)})
    original = Original("redeploy-1step", host.profile("redeploy-1step"), True, "running:pid 7")
    plan = TunePlan(host, "restored", made, Workload((1, 4)), "original", original)
    run = TuneRun(plan, lambda: 0.0)
    run.verdict = judge_profiles(made, [1, 4], original.name, original.engine)
    run.kept, run.restore = "original", "ct129 runs redeploy-1step again"
    assert render_run(run).splitlines()[0] == run.verdict.sentence
    data = run.to_json()
    assert data["engines"] == ["sglang", "vllm"] and data["canary"]["across_engines"] == "not comparable"
    assert [(a["name"], a["engine"], a["profile"]) for a in data["arms"]] == [("restored", "sglang", "restored"),
                                                                            ("vllm-mtp3", "vllm", "vllm-mtp3")]
    assert set(data["arms"][1]["results"][0]) >= {"concurrency", "output_tok_s", "request_tok_s", "ttft_ms",
                                                  "itl_ms", "accept_len", "accept_len_source", "warmup"}


def test_when_the_best_tokens_change_with_load_the_winning_engines_ladder_is_ready_to_save(tmp_path) -> None:
    from mtptui.engines.vllm.flags.launchset import from_profile
    path = host_file(tmp_path)
    data = tomllib.loads(path.read_text())
    data["profiles"]["vllm-mtp1"] = vllm_profile(1)
    data["profiles"]["vllm-mtp3"]["flags"]["max-num-seqs"] = 32
    import tomli_w

    path.write_text(tomli_w.dumps(data))
    host = load_host_file(path)
    made = profile_arms(host, ["vllm-mtp3", "vllm-mtp1", "restored"])
    speeds = {"vllm-mtp3": (60.0, 150.0), "vllm-mtp1": (40.0, 220.0), "restored": (50.0, 160.0)}
    for arm in made:
        c1, c16 = speeds[arm.name]
        measured(arm, 1, c1, c1)
        measured(arm, 16, c16, c16 / 16)
        arm.status, arm.canary = "done", "pass"
    verdict = judge_profiles(made, [1, 16], "restored", "sglang")
    assert verdict.best.name == "vllm-mtp3"
    ladder = ladder_of(made, [1, 16], verdict.best, host)
    assert ladder is not None and ladder.best == {1: 3, 16: 1}
    config = json.loads(ladder.profile.flags["speculative-config"])
    assert config == {"method": "mtp", "num_speculative_tokens": 3,
                      "num_speculative_tokens_per_batch_size": [[1, 15, 3], [16, 32, 1]]}
    assert ladder.sentence("vLLM").startswith("the best steps change with load (c=1: 3, c=16: 1): one vLLM launch")
    from_profile(ladder.profile, "0.32.0")  # vLLM's own flag model reads the saved profile
    sglang = ladder_of(made, [1], verdict.best, host)
    assert sglang is None  # one concurrency: nothing changes with load


def test_sglangs_ladder_is_adaptive_speculation_over_the_best_steps(tmp_path) -> None:
    from mtptui.engines.sglang.ladder import sglang_ladder

    host = load_host_file(host_file(tmp_path))
    ladder = sglang_ladder(host.profile("restored"), {1: 3, 16: 1}, "0.5.12.post1")
    assert ladder.profile.flags["speculative-adaptive"] is True and ladder.profile.flags["speculative-num-steps"] == 3
    assert "speculative-num-draft-tokens" not in ladder.profile.flags
    assert ladder.data["adaptive_config"] == {"candidate_steps": [1, 3]}
    assert sglang_ladder(host.profile("restored"), {1: 3, 16: 1}, "0.5.23").data["adaptive_config"] == {
        "1": {"candidate_steps": [1, 3]}, "16": {"candidate_steps": [1, 3]}}


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--arms", "restored", "--base", "restored"], 1,
     "--arms names the arms' profiles themselves, each the base of its own engine's part of --grid: it does not "
     "take --base"),
    (["--arms", "restored", "--grid", "nosuch=1,2"], 1,
     "--grid: 'nosuch' is no key of the arms' engines (SGLang: steps, topk, draft or one of its flags)"),
    (["--arms", "restored,redeploy-1step", "--grid", "steps=1,2", "tokens=1,3"], 1,
     "--grid: tokens is a key of vLLM's grid, and no profile of --arms runs vLLM"),
    (["--arms", "restored,redeploy-1step", "--grid", "steps=1,2,3,4,5,6,7,8", "draft=2,3,4,5,6"], 1,
     "--arms with --grid makes 80 arms; at most 64 (each one is a restart)"),
    (["--arms", ","], 1, "--arms takes profile names separated by commas, not ','"),
    (["--arms", "restored", "--adaptive"], 1, "--adaptive measures SGLang's adaptive proposal after a grid over an "
     "SGLang profile; a tune of --arms or of another engine's own grid proposes its winning engine's ladder instead, "
     "without --adaptive"),
    (["--arms", "restored,nope"], 2, "host 'demo' has no profile 'nope' (profiles: redeploy-1step, restored)"),
])
def test_bad_arms_are_one_sentence_before_anything_is_asked_of_the_host(capsys, args, code, message) -> None:
    from mtptui.cli.main import main

    assert main(["tune", "demo", "--yes", *args]) == code
    err = capsys.readouterr().err
    assert err.strip() == f"mtptui: {message}" and "Traceback" not in err


def test_a_grid_over_a_vllm_profile_is_vllms_own_tokens_and_method(tmp_path) -> None:
    from mtptui.ops.tune.profile_arms import grid_arms

    host = load_host_file(host_file(tmp_path))
    assert grid_arms(host, "restored", None) is None  # SGLang's grid is the tune's own (mtptui.ops.tune.arms)
    made = grid_arms(host, "vllm-mtp3", ["tokens=1,2,auto", "method=mtp,ngram"])
    assert [a.name for a in made] == ["tokens1-methodmtp", "tokens1-methodngram", "tokens2-methodmtp",
                                      "tokens2-methodngram", "tokensauto-methodmtp", "tokensauto-methodngram"]
    assert [a.label for a in made[:4]] == ["vLLM mtp 1", "vLLM ngram 1", "vLLM mtp 2", "vLLM ngram 2"]
    assert {a.engine for a in made} == {"vllm"} and all(a.profile.engine == "vllm" for a in made)
    assert json.loads(made[3].profile.flags["speculative-config"]) == {"method": "ngram", "num_speculative_tokens": 2}
    assert "num_speculative_tokens" not in json.loads(made[4].profile.flags["speculative-config"])
    assert made[3].profile.flags["tensor-parallel-size"] == 2 and made[3].profile.note == "tune arm of vllm-mtp3"
    assert [a.status for a in grid_arms(host, "vllm-mtp3", None)] == ["pending"] * 4  # tokens=1,2,3,4


def test_arms_with_a_grid_make_each_profile_the_base_of_its_own_engines_points(tmp_path) -> None:
    host = load_host_file(host_file(tmp_path))
    made, bases = grid_over_profiles(host, ["restored", "vllm-mtp3", "redeploy-1step"], ["steps=1,3", "tokens=1,3"])
    assert [(a.name, a.engine, a.profile_name, a.status) for a in made] == [
        ("restored-steps1", "sglang", "restored", "pending"), ("restored-steps3", "sglang", "restored", "pending"),
        ("vllm-mtp3-tokens1", "vllm", "vllm-mtp3", "pending"), ("vllm-mtp3-tokens3", "vllm", "vllm-mtp3", "pending"),
        ("redeploy-1step-steps1", "sglang", "redeploy-1step", "pending"),
        ("redeploy-1step-steps3", "sglang", "redeploy-1step", "pending")]
    assert [a.label for a in made] == [
        "SGLang steps 1 / draft 2 (restored-steps1)", "SGLang steps 3 / draft 4 (restored-steps3)", "vLLM mtp 1",
        "vLLM mtp 3", "SGLang steps 1 / draft 2 (redeploy-1step-steps1)",
        "SGLang steps 3 / draft 4 (redeploy-1step-steps3)"]  # two profiles' points read alike: named
    steps1, tokens1 = made[0].profile, made[2].profile
    assert steps1.flags["speculative-num-steps"] == 1 and steps1.note == "tune arm of restored"
    assert steps1.flags["mem-fraction-static"] == host.profile("restored").flags["mem-fraction-static"]
    assert json.loads(tokens1.flags["speculative-config"]) == {"method": "mtp", "num_speculative_tokens": 1}
    assert tokens1.engine == "vllm" and tokens1.note == "tune arm of vllm-mtp3"
    # each engine's base: its first profile's point with that profile's own launch (restored is steps 3, vLLM's 3)
    assert bases == {"sglang": "restored-steps3", "vllm": "vllm-mtp3-tokens3"}


def test_a_profile_whose_engine_has_no_dimension_runs_as_it_is_and_no_own_point_makes_the_first_the_base(
        tmp_path) -> None:
    host = load_host_file(host_file(tmp_path))
    made, bases = grid_over_profiles(host, ["restored", "vllm-mtp3", "vllm-bad"], ["tokens=2,1"])
    assert [(a.name, a.label, a.status) for a in made[:3]] == [
        ("restored", "SGLang steps 3 / draft 4", "pending"), ("vllm-mtp3-tokens2", "vLLM mtp 2", "pending"),
        ("vllm-mtp3-tokens1", "vLLM mtp 1", "pending")]
    assert made[0].profile is host.profile("restored")
    assert bases == {"sglang": "restored", "vllm": "vllm-mtp3-tokens2"}  # no point is tokens 3: the first
    assert [(a.name, a.status) for a in made[3:]] == [("vllm-bad-tokens2", "refused"), ("vllm-bad-tokens1", "refused")]
    assert made[3].reason.startswith("vLLM would refuse it: vLLM refuses --speculative-config method: ")
    sglang, _ = grid_over_profiles(host, ["restored"], ["mamba-scheduler-strategy=extra_buffer,no_buffer"])
    assert [a.status for a in sglang] == ["pending", "refused"]  # refused as SGLang's grid refuses it
    assert sglang[1].reason.startswith("SGLang would refuse it: ValueError: Speculative decoding for ")


def test_the_plan_runs_the_originals_engine_first_each_engine_from_its_base_arm(tmp_path) -> None:
    host = load_host_file(host_file(tmp_path))
    made, bases = grid_over_profiles(host, ["vllm-mtp3", "restored"], ["tokens=1,3", "steps=1,3"])
    original = Original("redeploy-1step", host.profile("redeploy-1step"), True, "running:pid 7")
    plan = TunePlan(host, "vllm-mtp3", made, Workload((1, 4)), "original", original, base_arms=bases,
                    grid=("tokens=1,3", "steps=1,3"))
    assert [a.name for a in plan.runnable] == ["restored-steps3", "restored-steps1", "vllm-mtp3-tokens3",
                                               "vllm-mtp3-tokens1"]
    assert plan.by_profile and plan.engines == ["sglang", "vllm"]
    assert plan.describe()[0].startswith("tune ct129 from the profiles vllm-mtp3, restored, each over its engine's "
                                         "part of the grid tokens=1,3 steps=1,3: 4 arm(s)")


def test_the_verdict_and_the_ladder_read_a_grid_over_profiles_as_they_read_profiles(tmp_path) -> None:
    host = load_host_file(host_file(tmp_path))
    made, _ = grid_over_profiles(host, ["restored", "vllm-mtp3"], ["tokens=1,3"])
    for arm, (c1, c16) in zip(made, [(50.0, 160.0), (40.0, 220.0), (60.0, 150.0)]):
        measured(arm, 1, c1, c1)
        measured(arm, 16, c16, c16 / 16)
        arm.status, arm.canary = "done", "pass"
    verdict = judge_profiles(made, [1, 16], "redeploy-1step", "sglang")
    assert verdict.best.name == "vllm-mtp3-tokens3"
    assert verdict.sentence.startswith("Switch to vLLM mtp 3: 60 tok/s at c=1, SGLang steps 3 / draft 4 is 17 % slower")
    ladder = ladder_of(made, [1, 16], verdict.best, host)
    assert ladder is not None and ladder.best == {1: 3, 16: 1}
    assert json.loads(ladder.profile.flags["speculative-config"])["num_speculative_tokens_per_batch_size"] == \
        [[1, 15, 3], [16, 1024, 1]]


@pytest.mark.parametrize(("specs", "message"), [
    (["port=8000,8001"], "--grid: port is a flag of both SGLang and vLLM, and each dimension of a grid over --arms is "
                         "one engine's: set it in the profiles instead"),
    (["nosuch=1"], "--grid: 'nosuch' is no key of the arms' engines (SGLang: steps, topk, draft or one of its flags; "
                   "vLLM: tokens, method or one of its flags)"),
    (["steps=1,2", "speculative-num-steps=3"], "--grid names steps twice"),
    (["tokens=1", "--grid"], "--grid takes NAME=V1,V2,... (e.g. steps=1,2,3), not '--grid'"),
])
def test_a_grid_dimension_of_no_one_engine_is_one_sentence(tmp_path, specs, message) -> None:
    host = load_host_file(host_file(tmp_path))
    with pytest.raises(UserError) as caught:
        grid_over_profiles(host, ["restored", "vllm-mtp3"], specs)
    assert str(caught.value) == message
    with pytest.raises(UserError, match="^--grid: max-num-seqs is a flag of vLLM, and no profile of --arms runs vLLM$"):
        grid_over_profiles(host, ["restored"], ["max-num-seqs=4,8"])
    with pytest.raises(UserError, match="^--grid: steps is a key of SGLang's grid, and no profile of --arms runs "
                                        "SGLang$"):
        grid_over_profiles(host, ["vllm-mtp3"], ["steps=1,3"])


def test_no_tune_replaces_a_profile_of_the_host(tmp_path) -> None:
    """A derived arm, of --arms with --grid or of a plain grid, named like a host profile is one sentence; the
    original, when it matches no profile, takes a name no profile has."""
    from mtptui.ops.tune.arms import make_arms
    from mtptui.ops.tune.grid import parse_grid
    from mtptui.ops.tune.plan import ORIGINAL, tune_profiles, unused_name

    host = load_host_file(host_file(tmp_path))
    restored = host.profile("restored")
    plain = make_arms(restored, "restored", parse_grid(["steps=1,3"]), host.sglang_version)
    over, _ = grid_over_profiles(host, ["restored"], ["steps=1,3"])
    matched = Original("restored", restored, True, "running:pid 1")
    for arms in (plain, over):
        taken = host.model_copy(update={"profiles": {**host.profiles, arms[0].name: restored}})
        with pytest.raises(UserError, match=f"^the tune would name an arm {arms[0].name}, which is already a "
                                            f"profile of ct129: rename that profile$"):
            tune_profiles(taken, arms, matched)
        assert set(tune_profiles(host, arms, matched)) == set(host.profiles) | {arm.name for arm in arms}
    assert unused_name(host, ORIGINAL) == "original"
    named = host.model_copy(update={"profiles": {**host.profiles, "original": restored, "original-2": restored}})
    assert unused_name(named, ORIGINAL) == "original-3"
    running = Original(unused_name(named, ORIGINAL), restored.model_copy(update={"note": "ran"}), False, "running")
    profiles = tune_profiles(named, plain, running)
    assert profiles["original"] is restored and profiles["original-3"].note == "ran"


def test_a_tune_across_engines_proposes_no_sglang_adaptive_mix_of_both_engines_steps(tmp_path) -> None:
    """vLLM ngram 1 best at c=1, SGLang steps 3 best at c=4: SGLang's adaptive proposal would start at vLLM's
    steps; the answer's ladder (the winning engine's own) is the only proposal (--adaptive with --arms is refused:
    test_bad_arms_are_one_sentence_before_anything_is_asked_of_the_host)."""
    from mtptui.ops.tune.adaptive import adaptive_arms

    host, made = measured_arms(tmp_path, {"restored": (50.0, 168.0), "vllm-mtp3": (63.0, 138.0)})
    made[1].flags["speculative-num-steps"] = 1  # as vLLM ngram 1 reads
    original = Original("redeploy-1step", host.profile("redeploy-1step"), True, "running:pid 7")
    plan = TunePlan(host, "restored", made, Workload((1, 4)), "original", original)
    assert plan.by_profile and plan.engine_ladder
    assert adaptive_arms(plan) == [] and plan.proposal is None
