"""SGLang's rules on the mission's configurations and on the mistakes made during the incident."""

from __future__ import annotations

import pytest

from mtptui.config.loader import load_host_file
from mtptui.engines.sglang.flags import FlagError, FlagSet, parse_argv, parse_command, render_argv, resolve_effective
from mtptui.engines.sglang.lint import check_launch, lint, lint_argv
from mtptui.engines.sglang.flags.models import guess_arch, model_info
from tests.conftest import CONFIGS

MODEL = "/data/models/Qwen3.6-27B"
SPEC = ["--model-path", MODEL, "--speculative-algorithm", "NEXTN", "--mamba-scheduler-strategy", "extra_buffer"]


@pytest.fixture(scope="module")
def ct129():
    return load_host_file(CONFIGS / "ct129.toml")


def _severities(findings) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for finding in findings:
        out.setdefault(finding.severity, []).append(finding.flag)
    return out


def test_restored_profile_is_clean(ct129) -> None:
    fs = FlagSet.from_profile(ct129.profile("restored"), ct129.sglang_version)
    findings = lint(fs)
    assert [f.severity for f in findings] == ["info"]  # only: NEXTN is resolved to EAGLE
    assert "resolved to EAGLE" in findings[0].message
    started = check_launch(render_argv(fs), ct129.sglang_version)
    assert (started.model_path, started.flags) == (fs.model_path, fs.flags)


@pytest.mark.parametrize(("flags", "warned"), [
    ("--speculative-algorithm NEXTN --speculative-num-steps 1 --speculative-eagle-topk 1", ["--speculative-num-steps"]),
    ("--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1", []),
    ("--speculative-algorithm EAGLE --speculative-draft-model-path /d --speculative-num-steps 1 "
     "--speculative-eagle-topk 1", []),  # a separate draft model: no MTP head named, no judgment
    ("--max-running-requests 1", ["--max-running-requests"]), ("--max-running-requests 2", [])])
def test_the_incident_shape_is_warned_of_by_mtptuis_judgment(flags, warned) -> None:
    fs = parse_command(f"--model-path /m/Qwen3.6-27B --mamba-scheduler-strategy extra_buffer {flags}")
    own = [f for f in lint(fs) if "mtptui's judgment" in f.message]
    assert [f.flag for f in own] == warned and all(f.severity == "warning" for f in own)


def test_redeploy_lints_without_errors_and_shows_the_auto_draft_tokens(ct129) -> None:
    fs = FlagSet.from_profile(ct129.profile("redeploy-1step"), ct129.sglang_version)
    findings = lint(fs)
    assert "error" not in _severities(findings)
    # SGLang starts it; mtptui's judgment says what made the incident slow (warnings: lint still exits 0)
    assert _severities(findings)["warning"] == ["--speculative-num-steps", "--max-running-requests"]
    steps, running = (f for f in findings if f.severity == "warning")
    assert "accepts at most 2" in steps.message and "mtptui's judgment" in steps.message
    assert "turns batching off" in running.message and steps.engine_message is running.engine_message is None
    draft = [f for f in findings if f.flag == "--speculative-num-draft-tokens"]
    assert draft and "resolves to 2" in draft[0].message
    effective = resolve_effective(fs)
    assert str(effective["--speculative-num-draft-tokens"]) == "2 (auto)"
    assert str(effective["--speculative-algorithm"]) == "EAGLE"
    assert str(effective["--mamba-full-memory-ratio"]) == "unset (default 0.9)"
    assert str(effective["--max-running-requests"]) == "1"


def test_draft_tokens_without_an_algorithm_are_a_warning_naming_num_steps() -> None:
    """SGLang ignores them and starts; the warning says the assert waits once an algorithm is set."""
    _, findings = lint_argv(["--model", MODEL, "--speculative-num-draft-tokens", "4"])
    found = [f for f in findings if f.flag == "--speculative-num-draft-tokens"]
    assert found and found[0].severity == "warning" and "--speculative-num-steps" in found[0].message
    assert "--speculative-num-steps 3 --speculative-eagle-topk 1" in found[0].fix
    assert not [f for f in findings if f.severity == "error"]


def test_draft_tokens_without_steps_fails_like_sglang() -> None:
    argv = SPEC + ["--speculative-num-draft-tokens", "4"]
    finding = next(f for f in lint(parse_argv(argv)) if f.severity == "error")
    assert finding.flag == "--speculative-num-draft-tokens" and finding.engine_message == "AssertionError"
    assert "--speculative-num-steps" in finding.message and "--speculative-num-steps 3" in finding.fix
    with pytest.raises(FlagError) as caught:
        check_launch(argv)
    assert str(caught.value) == "AssertionError"


def test_topk_without_steps_is_the_same_assert() -> None:
    with pytest.raises(FlagError, match="^AssertionError$"):
        check_launch(SPEC + ["--speculative-eagle-topk", "1"])


def test_steps_without_topk_is_sglangs_type_error() -> None:
    with pytest.raises(FlagError) as caught:
        check_launch(SPEC + ["--speculative-num-steps", "3"])
    assert str(caught.value) == "TypeError: '>' not supported between instances of 'NoneType' and 'int'"
    assert caught.value.flag == "--speculative-eagle-topk" and caught.value.fix == "add --speculative-eagle-topk 1"


def test_topk_one_forces_draft_tokens_to_steps_plus_one() -> None:
    fs = parse_argv(SPEC + ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                            "--speculative-num-draft-tokens", "8", "--max-running-requests", "8"])
    warnings = [f for f in lint(fs) if f.severity == "warning"]
    assert [w.flag for w in warnings] == ["--speculative-num-draft-tokens"]
    assert warnings[0].engine_message == ("speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 "
                                          "when speculative_eagle_topk == 1")
    assert str(resolve_effective(fs)["--speculative-num-draft-tokens"]) == "4 (auto)"
    assert check_launch(render_argv(fs)).flags == fs.flags  # a warning does not stop the server


def test_all_unset_resolves_to_the_auto_choice_and_48_requests() -> None:
    effective = resolve_effective(parse_argv(SPEC))
    assert [str(effective[f]) for f in ("--speculative-num-steps", "--speculative-eagle-topk",
                                        "--speculative-num-draft-tokens", "--max-running-requests")] == \
        ["3 (auto)", "1 (auto)", "4 (auto)", "48 (auto)"]
    llama = resolve_effective(parse_argv(SPEC), model_arch="LlamaForCausalLM")
    assert llama["--speculative-num-steps"].value == 5 and llama["--speculative-num-draft-tokens"].value == 8
    old = resolve_effective(parse_argv(["--model", MODEL, "--speculative-algorithm", "EAGLE"], "0.5.2"))
    assert (old["--speculative-num-steps"].value, old["--speculative-eagle-topk"].value) == (5, 4)


@pytest.mark.parametrize("version, algo, message", [
    ("0.5.12.post1", "FOO", "ValueError: Unknown speculative algorithm name: FOO"),
    ("0.5.23", "dspark_typo", "ValueError: Unknown speculative algorithm name: DSPARK_TYPO"),
    ("0.5.12.post1", "DSPARK", "ValueError: Unknown speculative algorithm name: DSPARK"),
    ("0.5.2", "NGRAM", "sglang serve: error: argument --speculative-algorithm: invalid choice: 'NGRAM'"),
])
def test_unknown_algorithm(version: str, algo: str, message: str) -> None:
    with pytest.raises(FlagError) as caught:
        check_launch(["--model", "/m/llama", "--speculative-algorithm", algo], version)
    assert str(caught.value).startswith(message)


def test_lowercase_nextn_is_accepted_from_0_5_12() -> None:
    assert resolve_effective(parse_argv(SPEC[:2] + ["--speculative-algorithm", "nextn"]))[
        "--speculative-algorithm"].value == "EAGLE"


def test_hybrid_without_extra_buffer_is_the_missions_crash() -> None:
    argv = ["--model-path", MODEL, "--speculative-algorithm", "NEXTN"]
    finding = next(f for f in lint(parse_argv(argv)) if f.severity == "error")
    assert finding.flag == "--mamba-scheduler-strategy" and "extra_buffer" in finding.fix
    assert "guessed from the model path" in finding.message
    with pytest.raises(FlagError, match="^ValueError: Speculative decoding for Qwen3_5ForCausalLM is not compatible"):
        check_launch(argv)
    assert not [f for f in lint(parse_argv(argv + ["--disable-radix-cache"])) if f.severity == "error"]
    assert not [f for f in lint(parse_argv(["--model-path", "/m/Llama-3-8B", "--speculative-algorithm", "EAGLE",
                                            "--speculative-draft-model-path", "/m/d"])) if f.severity == "error"]


def test_extra_buffer_on_a_model_without_mamba_layers() -> None:
    """0.5.12.post1 checks the strategy only for hybrid architectures (so it starts); 0.5.23 refuses it."""
    fs = parse_argv(["--model-path", "/m/x", "--mamba-scheduler-strategy", "extra_buffer"])
    findings = lint(fs, model_arch="LlamaForCausalLM")
    assert [(f.severity, f.flag) for f in findings] == [("info", "--mamba-scheduler-strategy")]
    assert "ignores" in findings[0].message
    fs = parse_argv(["--model-path", "/m/x", "--mamba-radix-cache-strategy", "extra_buffer"], "0.5.23")
    errors = [f for f in lint(fs, model_arch="LlamaForCausalLM") if f.severity == "error"]
    assert errors[0].engine_message == ("ValueError: --mamba-radix-cache-strategy extra_buffer needs mamba state, "
                                        "got LlamaForCausalLM.")


def test_hybrid_detection_is_explicit() -> None:
    for path in ["/data/models/Qwen3.6-27B", "Qwen/Qwen3.5-9B", "qwen3_5-moe", "Qwen/Qwen3-Next-80B-A3B-Instruct",
                 "nvidia/Nemotron-H-8B-Base-8K", "tiiuae/Falcon-H1-7B"]:
        assert model_info(path).hybrid, path
    for path in ["/m/Qwen3-32B", "/m/Qwen3-50B", "meta-llama/Llama-3.1-8B", "/m/Nemotron-Hyper", None]:
        assert not model_info(path).hybrid, path
    assert model_info("/m/whatever", "Qwen3NextForCausalLM").hybrid
    assert guess_arch("/m/DeepSeek-V3") == "DeepseekV3ForCausalLM"


def test_renamed_and_ambiguous_options_in_0_5_23_are_reported_with_the_new_name() -> None:
    argv = ["--model-path", MODEL, "--mamba-scheduler-strategy", "extra_buffer", "--cuda-graph-max-bs", "8"]
    fs, findings = lint_argv(argv, "0.5.23")
    by_flag = {f.flag: f for f in findings}
    old = by_flag["--mamba-scheduler-strategy"]
    assert old.severity == "error" and "--mamba-radix-cache-strategy" in old.message
    assert old.fix == "use --mamba-radix-cache-strategy extra_buffer"
    assert old.engine_message == "sglang serve: error: unrecognized arguments: --mamba-scheduler-strategy extra_buffer"
    bs = by_flag["--cuda-graph-max-bs"]
    assert "ambiguous" in bs.message and bs.fix == "use --cuda-graph-max-bs-decode 8"
    assert bs.engine_message.endswith("could match --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill")
    assert fs is not None and fs.model_path == MODEL
    _, findings = lint_argv(["--model", MODEL, "--mamba-scheduler-strategy=extra_buffer"], "0.5.23")
    assert findings[0].fix == "use --mamba-radix-cache-strategy extra_buffer"
    assert findings[0].engine_message.endswith("unrecognized arguments: --mamba-scheduler-strategy=extra_buffer")


def test_profile_lint_against_a_newer_release_reports_instead_of_raising(ct129) -> None:
    from mtptui.engines.sglang.lint import lint_profile

    fs, findings = lint_profile(ct129.profile("restored"), "0.5.23")
    assert [f.flag for f in findings if f.severity == "error"] == ["--mamba-scheduler-strategy"]
    assert fs is not None and fs.flags["--tp-size"] == 2 and fs.env == {"SGLANG_ENABLE_SPEC_V2": "1"}
    with pytest.raises(FlagError, match="unrecognized arguments: --mamba-scheduler-strategy extra_buffer"):
        FlagSet.from_profile(ct129.profile("restored"), "0.5.23")


def test_options_missing_from_an_older_release() -> None:
    _, findings = lint_argv(["--model", MODEL, "--mamba-full-memory-ratio", "0.5"], "0.5.2")
    assert findings[0].message == ("--mamba-full-memory-ratio is not an option of SGLang 0.5.2 "
                                   "(it was added in SGLang 0.5.12.post1).")
    _, findings = lint_argv(["--model", MODEL, "--cuda-graph-bs", "1", "2", "--enable-nan-detection"], "0.5.23")
    assert [f.message for f in findings] == [
        "--cuda-graph-bs is ambiguous in SGLang 0.5.23: it was renamed --cuda-graph-bs-decode.",
        "--enable-nan-detection is not an option of SGLang 0.5.23 (it was removed in SGLang 0.5.23; "
        "0.5.12.post1 has it)."]


def test_bad_values_are_reported_and_linting_goes_on() -> None:
    _, findings = lint_argv(["--model", MODEL, "--port", "x", "--kv-cache-dtype", "fp9", "--speculative-algo",
                             "NEXTN", "--speculative-num-draft-tokens", "4"])
    flags = [f.flag for f in findings if f.severity == "error"]
    assert flags[:2] == ["--port", "--kv-cache-dtype"] and "--speculative-num-draft-tokens" in flags


def test_deprecated_option_raises_its_help_text() -> None:
    with pytest.raises(FlagError, match="^ValueError: Deprecated. Token histograms"):
        check_launch(["--model", MODEL, "--collect-tokens-histogram"])


def test_backend_and_range_checks() -> None:
    fs = parse_argv(["--model", "/m/llama", "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
                     "--speculative-eagle-topk", "4", "--speculative-num-draft-tokens", "8",
                     "--attention-backend", "trtllm_mha", "--mem-fraction-static", "1.5"])
    messages = {f.engine_message for f in lint(fs) if f.severity == "error"}
    assert "ValueError: trtllm_mha backend only supports topk = 1 for speculative decoding." in messages
    assert any(f.flag == "--mem-fraction-static" for f in lint(fs))


def test_spec_v2_variable_by_version() -> None:
    fs = parse_argv(["--model", MODEL], "0.5.23")
    fs.env = {"SGLANG_ENABLE_SPEC_V2": "1"}
    assert [f.flag for f in lint(fs)] == ["SGLANG_ENABLE_SPEC_V2"]
    fs = parse_argv(["--model", MODEL])
    fs.env = {"SGLANG_ENABLE_SPEC_V2": "1"}
    assert lint(fs) == []
