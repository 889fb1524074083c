"""The parts of the host check that need no host: GPU facts from nvidia-smi's CSV, the command that ships the
runner, why an answer is no verdict, and how a verdict names its source. The lab tests run the whole check
(tests/test_lab_host_lint.py)."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from mtptui.ops.host_lint import BOOT, HOST_TIMEOUT_S, runner_command, why_not
from mtptui.remote.gpu_facts import QUERY, GpuFacts, parse_facts
from mtptui.remote.transport import Completed
from mtptui.engines.sglang.flags.table import versions
from mtptui.engines.sglang.lint.verdict import LintSource, offline_verdict, offline_version
from tests.sshd import NVIDIA_SMI

FACTS = GpuFacts(2, 47.98828125, "8.6", "NVIDIA RTX A6000", "nvidia-smi")


def stand_in_csv() -> str:
    return subprocess.run([str(NVIDIA_SMI), *QUERY[1:]], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.parametrize("visible, count", [(None, 2), ("1", 1), ("0,1", 2), ("GPU-8c04d7b1", 1), ("", 0)])
def test_gpu_facts_from_nvidia_smi_as_the_server_sees_them(visible, count) -> None:
    facts = parse_facts(stand_in_csv(), visible)
    if count == 0:
        assert facts is None
        return
    assert facts == GpuFacts(count, 49140 / 1024, "8.6", "NVIDIA RTX A6000", "nvidia-smi")
    assert facts.runner_args() == ["--gpus", str(count), "--gpu-memory-gb", "47.98828125", "--capability", "8.6",
                                   "--gpu-name", "NVIDIA RTX A6000"]


def test_unreadable_rows_are_no_gpu() -> None:
    assert parse_facts("No devices were found\n[N/A], [N/A], [N/A]\n") is None


def test_the_command_quotes_every_word_and_keeps_the_env_on_stdin() -> None:
    env = {"SGLANG_ENABLE_SPEC_V2": "1", "HF_TOKEN": "hf_secret", "PYTHONPATH": "/opt/x y"}
    command = runner_command("/opt/venv/bin/python", ["--model-path", "/m/it's"], env, FACTS, keep_pythonpath=False)
    words = shlex.split(command.line)
    assert words[:7] == ["timeout", "-k", "5", str(HOST_TIMEOUT_S), "env", "-u", "PYTHONPATH"]
    assert words[7:12] == ["PYTHONPATH=/opt/x y", "/opt/venv/bin/python", "-B", "-c", BOOT]
    assert words[12:] == FACTS.runner_args() + ["--batch"]
    assert "hf_secret" not in command.line and not command.changes_host
    sources, case = command.input.decode().splitlines()
    assert set(json.loads(sources)) == {"sglang_standins", "sglang_runner"}
    assert json.loads(case) == {"argv": ["--model-path", "/m/it's"], "env": env}


def test_a_process_started_from_a_shell_keeps_the_shells_pythonpath() -> None:
    words = shlex.split(runner_command("python3", [], {}, FACTS, keep_pythonpath=True).line)
    assert words[4:7] == ["env", "python3", "-B"]


def _done(status: int | None, out: str = "", err: str = "") -> Completed:
    return Completed("check", status, out.encode(), err.encode())


IMPORT = json.dumps({"accepted": False, "stage": "import", "sglang_message": "ModuleNotFoundError: No module "
                     "named 'sglang'"})


@pytest.mark.parametrize("result, why", [
    (_done(124), f"SGLang's check did not finish within {HOST_TIMEOUT_S} s on gpu1"),
    (_done(127, err="env: 'py': No such file or directory"), "py was not found on gpu1 (set python in the profile "
                                                               "to the server's interpreter)"),
    (_done(0, IMPORT + "\n"), "py on gpu1 cannot import SGLang (ModuleNotFoundError: No module named 'sglang')"),
    (_done(1, "not json\n", "Traceback ...\nMemoryError\n"), "SGLang's check on gpu1 gave no verdict (MemoryError)"),
    (_done(0, '{"accepted": tru\n'), "SGLang's check on gpu1 gave no verdict (exit status 0)"),
    (_done(0, 'noise\n{"accepted": true, "stage": null}\n'), None),
])
def test_why_an_answer_is_no_verdict(result, why) -> None:
    assert why_not(result, "py", "gpu1") == why


def test_sources_name_themselves_as_the_issue_says() -> None:
    assert LintSource("host", "0.5.12.post1", "ct129").label == "SGLang 0.5.12.post1 on ct129"
    offline = LintSource("offline", "0.5.12.post1", "ct129", "python3 on ct129 cannot import SGLang (...)")
    assert offline.label == "offline table for 0.5.12.post1"
    assert offline.heading == "Lint by the offline table for 0.5.12.post1, because python3 on ct129 cannot " \
                              "import SGLang (...)"


def test_a_release_without_a_table_is_judged_offline_by_the_newest_table() -> None:
    assert offline_version("0.5.12.post1") == "0.5.12.post1"
    assert offline_version("0.6.0") == versions()[0] != "0.6.0"
    verdict = offline_verdict(["--model-path", "/m/llama"], {}, "0.5.23")
    assert verdict.source.to_json() == {"kind": "offline", "sglang_version": "0.5.23", "host": None,
                                        "reason": None, "gpus": None}
