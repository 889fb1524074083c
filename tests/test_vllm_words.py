"""SGLang's words left on vLLM paths (issue 24): the bench rig, the accept-length note, the compare's version row,
tune's JSON, the host lint's fallback and the restart plan's lint line say the host's own engine."""

from __future__ import annotations

from mtptui.bench import history
from mtptui.bench.accept import AcceptEvidence, why_none
from mtptui.bench.compare import compare
from mtptui.bench.rig import make_rig, rig_differences, rig_of
from mtptui.bench.verdict_text import flag_name
from tests.test_bench_history import BAD, GOOD, run


def on_vllm(tok_s: float, flags: dict, version: str) -> dict:
    made = run(tok_s, flags)
    made["fingerprint"].update(engine="vllm", server_version=version)
    made["fingerprint"]["rig"] = make_rig(version, flags, None, "vllm")
    return made


def test_a_vllm_runs_rig_records_the_engine_and_its_version_not_an_sglang_version() -> None:
    rig = make_rig("0.32.0", {}, None, "vllm")
    assert (rig["engine"], rig["engine_version"]) == ("vllm", "0.32.0") and "sglang_version" not in rig
    history.append_run(on_vllm(70.0, GOOD, "0.31.0"))
    result = compare([on_vllm(40.0, BAD, "0.32.0")], history.load_runs())
    assert result.stale is not None and "(vLLM 0.32.0 now, 0.31.0 then)" in result.stale, result.stale


def test_an_older_rig_with_an_sglang_version_is_still_read_as_sglangs() -> None:
    old = {"rig": {"sglang_version": "0.5.12.post1", "gpu_model": None, "gpu_count": None, "driver": None,
                   "tp_size": 2}}
    assert (rig_of(old)["engine"], rig_of(old)["engine_version"]) == ("sglang", "0.5.12.post1")
    assert rig_differences(make_rig("0.5.12.post1", {"tp_size": 2}, None, "sglang"), rig_of(old)) == []
    assert rig_differences(make_rig("0.5.23", {}, None, "sglang"), rig_of(old)) == [
        ("engine_version", "0.5.23", "0.5.12.post1")]


def test_the_compares_version_row_names_vllm() -> None:
    # (the accept-length note's "SGLang {version}" needs an SGLang surface, which no vLLM version has: no test)
    note = why_none(AcceptEvidence(True, "0.32.0", metrics_enabled=True, engine="vllm"))
    assert "SGLang" not in note, note
    assert flag_name("version", "vllm") == "vLLM version" and flag_name("version") == "SGLang version"


def test_tunes_json_says_the_engines_version() -> None:
    from tests.test_tune import HOST, MISSION, measured_grid, tune_run

    data = tune_run(measured_grid(MISSION), lambda: 0.0).to_json()
    assert (data["engine"], data["engine_version"]) == ("sglang", HOST.sglang_version)


def test_the_host_lints_fallback_sentences_name_the_hosts_engine() -> None:
    import asyncio

    from mtptui.config import load_host_file
    from mtptui.ops.connect import open_session
    from mtptui.ops.host_lint import HOST_TIMEOUT_S, lint_on_host, why_not
    from mtptui.remote.transport import Completed
    from tests.conftest import CONFIGS

    assert why_not(Completed("check", 124, b"", b""), "py", "lab", "vLLM") == \
        f"vLLM's check did not finish within {HOST_TIMEOUT_S} s on lab"
    host = load_host_file(CONFIGS / "demo-vllm.toml")
    verdict = asyncio.run(lint_on_host(open_session(host), ["--model-path", "/m"], {}, None))
    assert verdict.source.reason == "the launch does not run vLLM through a python interpreter mtptui can ask"
