"""One Finding for every engine's lint: code reads engine_message, the JSON names it after the engine."""

from __future__ import annotations

from mtptui.engines.finding import Finding
from mtptui.engines.sglang.lint import Finding as SglangFinding
from mtptui.engines.vllm.flags.form import lint as vllm_form_lint
from mtptui.engines.vllm.flags.lint import Finding as VllmFinding


def test_each_engine_names_its_own_words_in_json_and_text() -> None:
    sglang = SglangFinding("error", "--x", "bad x.", "drop --x", "ValueError: x")
    vllm = VllmFinding("error", "--x", "bad x.", None, "vllm: error: x")
    assert list(sglang.to_dict()) == ["severity", "flag", "message", "fix", "sglang_message"]
    assert list(vllm.to_dict()) == ["severity", "flag", "message", "fix", "vllm_message"]
    assert str(sglang) == "error: --x: bad x. Fix: drop --x. (SGLang: ValueError: x)"
    assert str(vllm) == "error: --x: bad x. (vLLM: vllm: error: x)"
    assert sglang.stops_server and vllm.stops_server and isinstance(vllm, Finding)
    assert not Finding("error", None, "mtptui's own words.").stops_server


def test_vllm_form_refusal_is_said_by_vllm() -> None:
    _, findings = vllm_form_lint(["--max-model-len"], {}, "python3", "0.32.0")
    assert findings and all(isinstance(f, VllmFinding) for f in findings)
    assert "SGLang" not in str(findings[0]) and "vllm_message" in findings[0].to_dict()
