"""`mtptui restart HOST` and an unreachable host end to end over real SSH, on this machine as a process-managed
GPU host (the systemd host's diff and restart: tests/test_lab_cli.py, on the lab host's real systemd)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mtptui.cli.main import main
from tests.sshd import ROOT, free_port, nohup_server, process_host, wait_ready

pytestmark = pytest.mark.ssh


def cli(*args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args], capture_output=True, text=True,
                          stdin=stdin, timeout=120, cwd=ROOT)


def row(rows: list[dict], flag: str) -> dict:
    return next(r for r in rows if r["flag"] == flag)


def test_ssh_unreachable_host_is_one_sentence(sshd, tmp_path):
    host = process_host(tmp_path, sshd)
    text = host.path.read_text().replace(f"port = {sshd.port}", f"port = {free_port()}")
    host.path.write_text(text)
    for args in (["diff", host.name], ["restart", host.name, "--yes"], ["restart", host.name, "--dry-run"]):
        result = cli(*args, "--config", str(host.path))
        assert result.returncode == (2 if args[0] == "diff" else 1), result.stderr
        assert result.stderr.startswith("mtptui: cannot connect to root@127.0.0.1:")
        assert result.stderr.endswith(": connection refused\n") and result.stderr.count("\n") == 1


def test_ssh_restart_yes_json_takes_the_nohup_redeploy_to_restored(sshd, tmp_path, capsys):
    host = process_host(tmp_path, sshd)
    try:
        stray = nohup_server(sshd, host, "redeploy-1step")
        wait_ready(host, host.log)
        assert main(["restart", host.name, "--config", str(host.path), "--yes", "--json", "--timeout", "60"]) == 0
        captured = capsys.readouterr()
        result = json.loads(captured.out)
        assert result["outcome"] == "ready" and result["ok"] and result["profile"] == "restored"
        assert row(result["plan"]["diff"]["rows"], "--speculative-num-steps")["values"] == ["1", "3"]
        assert result["events"][-1]["step"] == "done" and "ready" in [e["step"] for e in result["events"]]
        assert "] ready" in captured.err  # progress went to stderr
        assert stray.wait(timeout=10) is not None
    finally:
        host.cleanup()
