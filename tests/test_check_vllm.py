"""`mtptui check` on a vLLM host: the server and api checks read the launch and the API through the host's engine
(vLLM's flag model and its /version), never SGLang's. The host is the vLLM demo's (configs/demo-vllm.toml): a
simulated vLLM started as `python -m vllm.entrypoints.openai.api_server` from the stand-in package.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.config.loader import load_host_file
from mtptui.demo.run import DemoRun
from mtptui.engines.registry import launches
from mtptui.ops.checks import Context
from mtptui.ops.checks.launch import read_launch
from mtptui.ops.checks.server import flag_problem
from mtptui.ops.connect import open_session
from tests.demo_server import running_demo

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


@pytest.fixture
def vllm_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with running_demo(tmp_path, monkeypatch, "vllm") as run:
        yield run


def test_check_finds_the_vllm_server_and_its_api(vllm_host: DemoRun) -> None:
    run = subprocess.run([sys.executable, "-m", "mtptui", "--config", str(vllm_host.host_path), "check", "demo-vllm",
                          "--json"], capture_output=True, text=True, timeout=120)
    report = json.loads(run.stdout)
    checks = {check["name"]: check for check in report["checks"]}
    assert report["engine"] == "vllm"
    server, api = checks["server"], checks["api"]
    assert server["status"] == "ok", server
    assert f"pid {vllm_host.pid_file_pid()}" in server["detail"] and "runs vLLM with /data/models/Qwen3.6-27B" \
        in server["detail"]
    assert api["status"] == "ok", api  # /version, not SGLang's /server_info; the model by its served name
    assert api["detail"].startswith("vLLM 0.32.0 answers at ") and "serving qwen3.6-27b" in api["detail"]
    assert "SGLang" not in run.stdout
    assert checks["nvidia-smi"]["status"] == "ok"  # the demo's two GPUs, as many as tensor-parallel-size asks


def test_the_gpu_check_reads_a_vllm_profiles_tensor_parallel_size(vllm_host: DemoRun, tmp_path: Path) -> None:
    wide = tmp_path / "wide.toml"
    wide.write_text(vllm_host.host_path.read_text().replace("tensor-parallel-size = 2", "tensor-parallel-size = 4"))
    run = subprocess.run([sys.executable, "-m", "mtptui", "--config", str(wide), "check", "demo-vllm", "--json"],
                         capture_output=True, text=True, timeout=120)
    gpu = {check["name"]: check for check in json.loads(run.stdout)["checks"]}["nvidia-smi"]
    assert gpu["status"] == "warn" and gpu["detail"].endswith("; profile restored asks for 4"), gpu
    assert gpu["fix"] == "set tensor-parallel-size of profile restored to at most 2"


def test_a_flag_vllm_refuses_is_vllms_refusal_not_sglangs() -> None:
    host = load_host_file(CONFIGS / "demo-vllm.toml")
    model = launches(host.engine)
    refused = read_launch(["vllm", "serve", "/m", "--mem-fraction-static", "0.8"], model.version(host), model)
    assert refused.engine and refused.problem == "vLLM refuses unrecognized arguments: --mem-fraction-static 0.8"
    accepted = read_launch(["/venv/bin/python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/m",
                            "--max-num-seqs", "8"], model.version(host), model)
    assert accepted.engine and accepted.model == "/m" and accepted.problem is None
    sglang = ["python3", "-m", "sglang.launch_server", "--model-path", "/m"]
    assert not read_launch(sglang, model.version(host), model).engine  # another engine's server is not this one
    [(note, fix)] = flag_problem(Context(open_session(host)), refused, "ExecStart= of vllm-qwen.service")
    assert note == f"vLLM 0.32.0 refuses its flags ({refused.problem})"
    assert fix == "fix the flag in ExecStart= of vllm-qwen.service"  # no sglang_version: vLLM's is not in the file


def test_an_sglang_hosts_refusal_still_points_at_sglang_version() -> None:
    host = load_host_file(CONFIGS / "demo.toml")
    model = launches(host.engine)
    refused = read_launch(["python3", "-m", "sglang.launch_server", "--model-path", "/m", "--max-num-seqs", "3"],
                          model.version(host), model)
    assert refused.engine and refused.problem is not None and "--max-num-seqs" in refused.problem
    [(note, fix)] = flag_problem(Context(open_session(host), Path("demo.toml")), refused, "the command line")
    assert note.startswith(f"SGLang {host.sglang_version} refuses its flags (")
    assert fix == "fix the flag in the command line, or sglang_version in demo.toml if the host runs another SGLang"


def test_a_vllm_profiles_malformed_flag_name_is_not_called_an_sglang_option() -> None:
    from mtptui.config.hosttext import parse_host
    from mtptui.errors import UserError

    text = (CONFIGS / "demo-vllm.toml").read_text().replace("max-num-seqs = 16", "--max-num-seqs = 16")
    with pytest.raises(UserError) as raised:
        parse_host(text, "demo-vllm.toml")
    assert "'--max-num-seqs' is not a long option name" in str(raised.value)
    assert "SGLang" not in str(raised.value)


def _flags_lint(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mtptui", "--config", str(config), "flags", "lint", "demo-vllm",
                           "--profile", "restored", *extra], capture_output=True, text=True, timeout=120)


def test_flags_lint_of_a_vllm_hosts_profile_is_vllms_lint(tmp_path: Path) -> None:
    good = _flags_lint(CONFIGS / "demo-vllm.toml")
    assert good.returncode == 0, good.stdout + good.stderr
    # the demo's python3 has no vLLM to ask (tests/test_lab_vllm_real.py asks a real one on the lab host)
    assert good.stdout.startswith("profile restored: lint by vLLM 0.32.0's flag model, offline (python3 on "
                                  "demo-vllm cannot import vLLM (ModuleNotFoundError: No module named 'vllm'))\n")
    assert "not an SGLang option" not in good.stdout and "0 errors for vLLM 0.32.0" in good.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text((CONFIGS / "demo-vllm.toml").read_text().replace("max-num-seqs = 16\n",
                                                                   "max-num-seqs = 16\nmem-fraction-static = 0.8\n"))
    refused = _flags_lint(bad, "--json")
    assert refused.returncode == 1, refused.stderr
    data = json.loads(refused.stdout)
    assert (data["engine"], data["version"], data["ok"], data["errors"]) == ("vllm", "0.32.0", False, 1)
    assert data["findings"][0]["message"] == "vLLM refuses unrecognized arguments: --mem-fraction-static"
