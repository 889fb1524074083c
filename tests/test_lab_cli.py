"""`mtptui diff HOST` and `mtptui restart HOST` end to end over SSH, on the lab host in the mission's state: the
real unit holds the known-good flags and is stopped, and a redeploy started by hand with nohup serves.

Every command runs as the operator runs it (a subprocess, the operator's HOME); what changed on the host is read
from the host itself: its unit directory, the process of the redeploy.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from mtptui.cli.main import main
from tests.lab import UNIT, LabHost, lab_host_file, operator_env, start_server
from tests.lab.hosts import unit_text
from tests.sshd import ROOT

pytestmark = pytest.mark.ssh


@pytest.fixture
def mission(lab, tmp_path, monkeypatch):
    """(the host, the pid of the nohup redeploy): the unit holds restored and is stopped."""
    lab.reset()
    monkeypatch.setenv("HOME", str(lab.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    host = lab_host_file(lab, tmp_path / "lab.toml", "systemd")
    host.unit_file.write_text(unit_text(host, "restored"))
    lab.systemctl("daemon-reload")
    redeploy = lab_host_file(lab, tmp_path / "redeploy.toml", "process")
    start_server(redeploy, "redeploy-1step")
    redeploy.wait_ready()
    yield host, int((lab.srv / "sglang.pid").read_text())
    lab.reset()


def cli(host: LabHost, *args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args, "--config", str(host.path)],
                          capture_output=True, text=True, stdin=stdin, timeout=120, cwd=ROOT,
                          env=operator_env(host.lab))


def row(rows: list[dict], flag: str) -> dict:
    return next(r for r in rows if r["flag"] == flag)


def backups(host: LabHost) -> list[str]:
    return [p.name for p in host.unit_file.parent.iterdir() if p.name.endswith(".bak")]


def still_runs(host: LabHost, pid: int) -> bool:
    return "sglang.launch_server" in host.lab.argv(pid)


def test_diff_host_json_is_running_vs_unit_vs_profile(mission, capsys):
    host, stray = mission
    assert main(["diff", "lab", "--config", str(host.path), "--json"]) == 1  # diff(1): the sides differ
    data = json.loads(capsys.readouterr().out)
    assert data["sides"] == [f"running:pid {stray}", f"unit:{host.unit_path}", "profile:restored"]
    assert row(data["rows"], "--speculative-num-steps")["values"] == ["1", "3", "3"]
    draft = row(data["rows"], "--speculative-num-draft-tokens")
    assert draft["values"] == [None, "4", "4"] and draft["resolved"][0] == "2 (auto)"
    assert row(data["rows"], "--max-running-requests")["values"] == ["1", "16", "16"]
    assert row(data["rows"], "--context-length")["values"] == [None, "131072", "131072"]
    assert "--host" not in {r["flag"] for r in data["rows"]} and data["env"] == []


def test_restart_dry_run_shows_diff_and_exact_commands_and_changes_nothing(mission, capsys):
    host, stray = mission
    before = host.unit_file.read_text()
    assert main(["restart", "lab", "--config", str(host.path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"running:pid {stray}" in out and "--speculative-num-steps" in out
    assert "$ systemctl daemon-reload" in out and f"$ systemctl restart {UNIT}" in out
    assert f"$ systemctl reset-failed {UNIT}" in out and f"stop the server (pid {stray}" in out
    assert f"systemctl enable {UNIT} once the server is ready" in out  # offered: the unit is not enabled
    assert main(["restart", "lab", "--config", str(host.path), "--dry-run", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["dry_run"] and [s["step"] for s in plan["steps"]] == ["stopping", "write_unit", "reload",
                                                                       "reset_failed", "starting"]
    assert plan["steps"][2]["command"] == "systemctl daemon-reload" and plan["after_ready"] == []
    assert plan["backup"].startswith(host.unit_path + ".") and plan["backup"].endswith(".bak")
    assert host.unit_file.read_text() == before and backups(host) == []
    assert still_runs(host, stray)  # the running server was not touched


def test_readonly_refuses_restart_with_one_sentence(mission):
    host, stray = mission
    for args in (["--readonly", "restart", "lab", "--yes"], ["restart", "lab", "--yes", "--readonly"]):
        result = cli(host, *args)
        assert result.returncode == 1
        assert result.stderr == "mtptui: refusing to restart with profile restored on lab: mtptui runs with " \
                                "--readonly\n"
    assert still_runs(host, stray) and backups(host) == []


def test_restart_without_yes_needs_a_terminal(mission):
    host, stray = mission
    result = cli(host, "restart", "lab")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().endswith("refusing to restart lab without confirmation: stdin is not a terminal "
                                          "(pass --yes)")
    assert still_runs(host, stray)


def test_restart_asks_on_the_terminal_and_no_means_nothing_changes(mission):
    host, stray = mission
    master, slave = pty.openpty()
    try:
        os.write(master, b"n\n")
        result = cli(host, "restart", "lab", stdin=slave)
    finally:
        os.close(master)
        os.close(slave)
    assert result.returncode == 1
    assert "Restart lab with profile restored? [y/N]" in result.stdout
    assert result.stderr == "mtptui: restart of lab cancelled; nothing was changed\n"
    assert still_runs(host, stray) and backups(host) == []
