"""`mtptui diff HOST` and `mtptui restart HOST` end to end over real SSH, on the stand-in GPU host."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.cli.main import main
from tests.sshd import ROOT, free_port, host_command, nohup_server, process_host, sshd, systemd_host, wait_ready  # noqa: F401

pytestmark = pytest.mark.ssh


@pytest.fixture
def mission(tmp_path, sshd):
    """The mission's state: the unit holds the known-good flags and is stopped; a nohup redeploy serves."""
    host = systemd_host(tmp_path, sshd, "restored")
    stray = nohup_server(sshd, host, "redeploy-1step")
    wait_ready(host, host.log)
    yield host, stray
    host_command(sshd, "systemctl", "stop", host.unit)
    host.cleanup()


def cli(*args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args], capture_output=True, text=True,
                          stdin=stdin, timeout=120, cwd=ROOT)


def row(rows: list[dict], flag: str) -> dict:
    return next(r for r in rows if r["flag"] == flag)


def test_ssh_diff_host_json_is_running_vs_unit_vs_profile(mission, capsys):
    host, stray = mission
    assert main(["diff", host.name, "--config", str(host.path), "--json"]) == 1  # diff(1): the sides differ
    data = json.loads(capsys.readouterr().out)
    assert data["sides"][0] == f"running:pid {stray.pid}"
    assert data["sides"][1].startswith("unit:") and data["sides"][1].endswith(host.unit)
    assert data["sides"][2] == "profile:restored"
    assert row(data["rows"], "--speculative-num-steps")["values"] == ["1", "3", "3"]
    draft = row(data["rows"], "--speculative-num-draft-tokens")
    assert draft["values"] == [None, "4", "4"] and draft["resolved"][0] == "2 (auto)"
    assert row(data["rows"], "--max-running-requests")["values"] == ["1", "16", "16"]
    assert row(data["rows"], "--context-length")["values"] == [None, "131072", "131072"]
    assert "--host" not in {r["flag"] for r in data["rows"]} and data["env"] == []


def test_ssh_restart_dry_run_shows_diff_and_exact_commands_and_changes_nothing(mission, sshd, capsys):
    host, stray = mission
    unit = Path(sshd.env["MTPTUI_STANDIN_STATE"]) / "systemd" / "units" / host.unit
    before = unit.read_text()
    assert main(["restart", host.name, "--config", str(host.path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"running:pid {stray.pid}" in out and "--speculative-num-steps" in out
    assert "$ systemctl daemon-reload" in out and f"$ systemctl restart {host.unit}" in out
    assert f"stop the server (pid {stray.pid}" in out and f"$ systemctl enable {host.unit}" in out
    assert main(["restart", host.name, "--config", str(host.path), "--dry-run", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["dry_run"] and [s["step"] for s in plan["steps"]] == ["stopping", "write_unit", "reload", "starting"]
    assert plan["steps"][2]["command"] == "systemctl daemon-reload"
    assert plan["backup"].startswith(str(unit) + ".") and plan["backup"].endswith(".bak")
    assert unit.read_text() == before and not list(unit.parent.glob("*.bak"))
    assert stray.poll() is None  # the running server was not touched


def test_ssh_readonly_refuses_restart_with_one_sentence(mission, sshd):
    host, stray = mission
    for args in (["--readonly", "restart", host.name, "--yes"], ["restart", host.name, "--yes", "--readonly"]):
        result = cli(*args, "--config", str(host.path))
        assert result.returncode == 1
        assert result.stderr == f"mtptui: refusing to restart with profile restored on {host.name}: mtptui runs " \
                                f"with --readonly\n"
    assert stray.poll() is None and not list(Path(sshd.env["MTPTUI_STANDIN_STATE"]).rglob("*.bak"))


def test_ssh_restart_without_yes_needs_a_terminal(mission):
    host, stray = mission
    result = cli("restart", host.name, "--config", str(host.path))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().endswith(f"refusing to restart {host.name} without confirmation: stdin is not a "
                                          f"terminal (pass --yes)")
    assert stray.poll() is None


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


def test_ssh_restart_asks_on_the_terminal_and_no_means_nothing_changes(mission, sshd):
    import os
    import pty

    host, stray = mission
    master, slave = pty.openpty()
    try:
        os.write(master, b"n\n")
        result = cli("restart", host.name, "--config", str(host.path), stdin=slave)
    finally:
        os.close(master)
        os.close(slave)
    assert result.returncode == 1
    assert f"Restart {host.name} with profile restored? [y/N]" in result.stdout
    assert result.stderr == f"mtptui: restart of {host.name} cancelled; nothing was changed\n"
    assert stray.poll() is None and not list(Path(sshd.env["MTPTUI_STANDIN_STATE"]).rglob("*.bak"))
