"""`mtptui flags lint` as a user runs it: exit codes, text and JSON, versions, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

RESTORED = ["--model-path", "/data/models/Qwen3.6-27B", "--host", "0.0.0.0", "--port", "30000", "--tp", "2",
            "--speculative-algorithm", "NEXTN", "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "4", "--mem-fraction-static", "0.88", "--context-length", "131072",
            "--max-running-requests", "16", "--mamba-full-memory-ratio", "0.5",
            "--mamba-scheduler-strategy", "extra_buffer", "--reasoning-parser", "qwen3",
            "--tool-call-parser", "qwen3_coder"]


def lint(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "flags", "lint", *args],
                          capture_output=True, text=True, timeout=60)


def test_restored_flags_exit_0() -> None:
    result = lint("--", *RESTORED)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "1 info for SGLang 0.5.12.post1"


def test_draft_tokens_without_steps_exit_1_naming_num_steps() -> None:
    result = lint("--", "--model", "/m/Qwen3.6-27B", "--speculative-algorithm", "NEXTN",
                  "--mamba-scheduler-strategy", "extra_buffer", "--speculative-num-draft-tokens", "4")
    assert result.returncode == 1
    line = next(x for x in result.stdout.splitlines() if x.startswith("error: --speculative-num-draft-tokens"))
    assert "--speculative-num-steps" in line and line.endswith("(SGLang: AssertionError)")


def test_draft_tokens_without_an_algorithm_only_warn() -> None:
    """SGLang ignores speculative parameters without an algorithm and starts: a warning, exit 0."""
    result = lint("--", "--model", "/m/llama", "--speculative-num-draft-tokens", "4")
    assert result.returncode == 0, result.stdout
    line = next(x for x in result.stdout.splitlines() if x.startswith("warning: --speculative-num-draft-tokens"))
    assert "--speculative-num-steps" in line


def test_json_output_of_a_whole_command() -> None:
    result = lint("--json", "--", "SGLANG_ENABLE_SPEC_V2=1", "python3", "-m", "sglang.launch_server",
                  "--model", "/m/Qwen3.6-27B", "--speculative-algo", "NEXTN", "--speculative-num-draft-tokens", "4")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["version"] == "0.5.12.post1" and data["ok"] is False and data["errors"] >= 1
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert set(errors[0]) == {"severity", "flag", "message", "fix", "sglang_message"}
    # SGLang 0.5.12.post1 checks the hybrid's mamba strategy before the speculative parameters
    assert errors[0]["sglang_message"].startswith("ValueError: Speculative decoding for Qwen3_5ForCausalLM")
    assert [e["sglang_message"] for e in errors[1:]] == ["AssertionError"]
    assert data["command"].startswith("SGLANG_ENABLE_SPEC_V2=1 python3 -m sglang.launch_server --model-path")


def test_version_0_5_23_reports_renamed_options() -> None:
    result = lint("--version", "0.5.23", "--json", "--", *RESTORED)
    assert result.returncode == 1
    errors = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [e["flag"] for e in errors] == ["--mamba-scheduler-strategy"]
    assert errors[0]["fix"] == "use --mamba-radix-cache-strategy extra_buffer"


def test_warnings_alone_exit_0() -> None:
    result = lint("--", "--model", "/m/llama", "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
                  "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "9")
    assert result.returncode == 0 and "warning: --speculative-num-draft-tokens" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--version", "9.9", "--", "--port", "1"], "unknown SGLang version '9.9'"),
    ([], "give a host or the SGLang arguments after --"),
    (["--", "ls", "-l"], "'ls' is neither an SGLang option"),
    (["ct129", "--bogus"], "unexpected '--bogus' after the host; usage: mtptui flags lint HOST [--profile P]"),
    (["--version", "0.5.23", "ct129"], "--version is for SGLang arguments: with a host, the host's SGLang says"),
    (["--profile", "restored", "--", "--port", "1"], "--profile names a profile of a host"),
])
def test_bad_input_is_one_sentence(args: list[str], message: str) -> None:
    result = lint(*args)
    assert result.returncode == 1 and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_word_that_is_neither_a_host_nor_a_command_is_one_sentence() -> None:
    result = lint("ls", "-l")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("mtptui: 'ls' is neither a configured host nor an SGLang option or launch command")


def test_json_states_the_offline_table_as_its_source() -> None:
    data = json.loads(lint("--version", "0.5.23", "--json", "--", "--model", "/m/llama").stdout)
    assert data["source"] == {"kind": "offline", "sglang_version": "0.5.23", "host": None, "reason": None,
                              "gpus": None}


@pytest.mark.parametrize("args, expected", [
    (RESTORED, {"--speculative-algorithm": "EAGLE", "--speculative-num-steps": 3, "--speculative-eagle-topk": 1,
                "--speculative-num-draft-tokens": 4, "--max-running-requests": 16}),
    (["--model", "/m/llama", "--speculative-algorithm", "NGRAM", "--speculative-ngram-max-bfs-breadth", "4"],
     {"--speculative-algorithm": "NGRAM", "--speculative-eagle-topk": 4, "--speculative-num-draft-tokens": 12,
      "--speculative-num-steps": None, "--max-running-requests": 48}),
])
def test_json_states_the_resolved_speculative_values(args: list[str], expected: dict) -> None:
    resolved = json.loads(lint("--json", "--", *args).stdout)["resolved"]
    assert {flag: resolved[flag]["value"] for flag in expected} == expected
    assert resolved["--speculative-num-draft-tokens"]["source"] == ("set" if "NEXTN" in args else "auto")
