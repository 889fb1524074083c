"""`mtptui diff` and `mtptui restart` on a vLLM host under real systemd: the lab host (systemd 252 as PID 1, its
journald, reached over SSH) runs the simulated vLLM as the unit `mtptest-vllm.service`, launched as vLLM's
API-server module (`python -m vllm.entrypoints.openai.api_server --model ...`, the stand-in `vllm` package).

The diff reads the unit's ExecStart=, the running process and the profile through vLLM's flag model; a restart
rewrites the unit (backed up first), daemon-reloads, restarts, follows the unit's journal to vLLM's
`Application startup complete.` and the server answers /health with the profile's num_speculative_tokens; a
profile the server refuses at start is rolled back to the previous unit. Every check reads the host itself.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mtptui.engines.registry import launcher
from mtptui.ops.connect import open_session
from mtptui.ops.diff_live import live_diff
from mtptui.ops.restart.plan import plan_restart
from mtptui.ops.restart.run import Restarter
from mtptui.engines.sglang.unit import read_unit
from tests.lab import ALIAS, API_PORT, LabHost, operator_env
from tests.sshd import NETGUARD, ROOT

pytestmark = pytest.mark.ssh
UNIT = "mtptest-vllm.service"  # the lab's reset removes mtptest-* units
UNIT_PATH = f"/etc/systemd/system/{UNIT}"
DEMO_VLLM = ROOT / "mtptui" / "demo_vllm"
READY = "Application startup complete."
SKELETON = ("[Unit]\nDescription=vLLM Qwen3.6-27B (lab host)\nAfter=network-online.target\n\n[Service]\n"
            "Type=simple\nExecStart=/bin/false\nRestart=no\n\n[Install]\nWantedBy=multi-user.target\n")


def _profile(tokens: int, **flags: object) -> dict[str, object]:
    return {"model_path": "/data/models/Qwen3.6-27B", "python": sys.executable,
            "env": {"PYTHONPATH": f"{DEMO_VLLM}:{NETGUARD}:{ROOT}"},
            "flags": {"host": "127.0.0.1", "port": API_PORT, "tensor-parallel-size": 2,
                      "speculative-config": json.dumps({"method": "mtp", "num_speculative_tokens": tokens}),
                      "served-model-name": ["qwen3.6-27b"], **flags}}


@pytest.fixture
def vllm_lab(lab, tmp_path, monkeypatch: pytest.MonkeyPatch):
    """The lab host running the bad redeploy (one MTP token) as the vLLM unit; HOME is the operator's."""
    import tomli_w

    from mtptui.config.loader import load_host_file

    lab.reset()
    monkeypatch.setenv("HOME", str(lab.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    data = {"name": "lab-vllm", "engine": "vllm", "api_url": f"http://127.0.0.1:{API_PORT}", "known_good": "restored",
            "ssh": {"target": ALIAS}, "server": {"manager": "systemd", "unit": UNIT}, "log": {"kind": "journal"},
            "profiles": {"restored": _profile(3, **{"max-num-seqs": 16}), "redeploy-1step": _profile(1),
                         "too-much-memory": _profile(2, **{"gpu-memory-utilization": 1.5})}}
    path = tmp_path / "lab-vllm.toml"
    path.write_text(tomli_w.dumps(data))
    host = LabHost(lab, path, "systemd")
    config = load_host_file(path)
    lab.path(UNIT_PATH).write_text(launcher("vllm").unit(SKELETON, UNIT, config, config.profile("redeploy-1step")))
    lab.systemctl("daemon-reload")
    lab.systemctl("start", UNIT)
    wait_ready(host)
    yield host
    lab.reset()


def journal(host: LabHost) -> str:
    return host.lab.machine.run("journalctl", "-u", UNIT, "-o", "cat", "--no-pager").stdout


def wait_ready(host: LabHost, after: int = 0) -> None:
    import time

    deadline = time.monotonic() + 90
    while READY not in journal(host)[after:]:
        assert time.monotonic() < deadline, journal(host)[-2000:]
        time.sleep(0.2)


def tokens_in_unit(host: LabHost) -> int:
    argv = read_unit(host.lab.path(UNIT_PATH).read_text(), UNIT).exec_argv
    return int(json.loads(argv[argv.index("--speculative-config") + 1])["num_speculative_tokens"])


def main_pid(host: LabHost) -> int:
    return int(host.lab.systemctl("show", "-p", "MainPID", "--value", UNIT).strip())


def test_the_diff_reads_the_vllm_unit_process_and_profile(vllm_lab: LabHost) -> None:
    run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "diff", "lab-vllm", "--json", "--config",
                          str(vllm_lab.path)], capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env=operator_env(vllm_lab.lab))
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    assert data["engine"] == "vllm"
    assert data["sides"] == [f"running:pid {main_pid(vllm_lab)}", f"unit:{UNIT_PATH}", "profile:restored"]
    rows = {row["flag"]: row for row in data["rows"]}
    assert [json.loads(value)["num_speculative_tokens"] for value in rows["--speculative-config"]["resolved"]] \
        == [1, 1, 3]


async def test_a_restart_changes_num_speculative_tokens_and_comes_back_ready(vllm_lab: LabHost) -> None:
    before = vllm_lab.lab.path(UNIT_PATH).read_text()
    async with open_session(vllm_lab.config) as session:
        plan = await plan_restart(session, "restored")
        result = await Restarter(session, plan, timeout_s=120).run()
    assert result.outcome == "ready", result.summary()
    assert plan.backup is not None and vllm_lab.lab.path(plan.backup).read_text() == before  # backed up first
    assert tokens_in_unit(vllm_lab) == 3 and result.end is not None and result.end.unit == "new"
    assert result.end.launch == "new" and result.end.pid == main_pid(vllm_lab)
    argv = vllm_lab.lab.argv(main_pid(vllm_lab))
    assert argv[argv.index("--speculative-config") + 1] == '{"method": "mtp", "num_speculative_tokens": 3}'
    status, _ = vllm_lab.lab.api("/health")
    assert status == 200
    async with open_session(vllm_lab.config) as session:  # the new server's own word, read from its journal
        after = await live_diff(session, "restored")
    assert after.running is not None and after.running.side.flagset.said["--speculative-config"] == \
        {"method": "mtp", "num_speculative_tokens": 3}


async def test_a_start_vllm_refuses_rolls_the_unit_back(vllm_lab: LabHost) -> None:
    before = vllm_lab.lab.path(UNIT_PATH).read_text()
    async with open_session(vllm_lab.config) as session:
        result = await Restarter(session, await plan_restart(session, "too-much-memory"), timeout_s=120).run()
    assert result.outcome == "rolled_back", result.summary()
    assert vllm_lab.lab.path(UNIT_PATH).read_text() == before and tokens_in_unit(vllm_lab) == 1
    assert result.end is not None and result.end.unit == "previous" and result.end.launch == "previous"
    status, _ = vllm_lab.lab.api("/health")
    assert status == 200
