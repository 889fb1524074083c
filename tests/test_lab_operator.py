"""The lab host as its non-root operator account (``mtpops``, the ``gpu-lab-ops`` alias), whose sudoers rule
allows only systemctl and journalctl for the unit, and nothing else: the delegation an admin gives an account
that runs one service. The unit runs as that account, and its ExecStart= lives in a drop-in directory the
account owns: mtptui writes it with the account's own rights and runs systemctl and journalctl through sudo.

With the rule everything works (check, diff, the journal, restart, enable); without it `mtptui check` names the
rule on its sudo line, before anything else, and a restart fails with one sentence naming what sudo refused.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import tomli_w
import tomllib

from mtptui.remote.sudo import rule_for
from tests.lab import OPERATOR, OPERATOR_ALIAS, UNIT, LabHost, lab_host_file, operator_env
from tests.lab.hosts import UNIT_TEMPLATE, unit_text
from tests.sshd import NVIDIA_SMI, ROOT

pytestmark = pytest.mark.ssh
DROP_IN_DIR = f"/etc/systemd/system/{UNIT}.d"
RULE = rule_for(OPERATOR, UNIT)


@pytest.fixture
def operator_host(lab, tmp_path, monkeypatch):
    """The bad redeploy, run by the unit as the operator account, from a drop-in that account owns."""
    lab.reset()
    monkeypatch.setenv("HOME", str(lab.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    model = lab.models / "Qwen3.6-27B"
    model.mkdir(parents=True, exist_ok=True)
    (model / "config.json").write_text('{"architectures": ["Qwen3_5ForCausalLM"]}\n')
    host = lab_host_file(lab, tmp_path / "lab.toml", "systemd", model=str(model))
    data = tomllib.loads(host.path.read_text())
    data["ssh"] = {"target": OPERATOR_ALIAS}
    data["server"]["command_prefix"] = ["sudo", "-n"]
    host.path.write_text(tomli_w.dumps(data))
    redeploy = unit_text(host, "redeploy-1step")
    host.unit_file.write_text(UNIT_TEMPLATE.replace("[Service]\n", f"[Service]\nUser={OPERATOR}\n"))
    drop_in = lab.path(f"{DROP_IN_DIR}/override.conf")
    drop_in.parent.mkdir()
    drop_in.write_text("[Service]\nExecStart=\n" + redeploy[redeploy.index("Environment="):redeploy.index("Restart=")])
    lab.run("chown", "-R", f"{OPERATOR}:{OPERATOR}", DROP_IN_DIR)
    lab.state.chmod(0o1777)  # the simulated GPUs' state, written by the server (now the operator's)
    lab.install(NVIDIA_SMI)
    lab.sudoers(RULE)
    lab.systemctl("daemon-reload")
    lab.systemctl("start", UNIT)
    host.wait_ready()
    yield host
    lab.sudoers(None)
    lab.reset()


def mtptui(host: LabHost, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args, "--config", str(host.path)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=operator_env(host.lab))


def owner(host: LabHost, path: str) -> str:
    return host.lab.run("stat", "-c", "%U", path).stdout.strip()


def test_with_a_rule_for_the_unit_only_everything_works(operator_host):
    host = operator_host
    check = json.loads(mtptui(host, "check", "lab", "--json").stdout)
    assert {c["name"]: c["status"] for c in check["checks"]} == {name: "ok" for name in (
        "ssh", "sudo", "server", "log", "api", "nvidia-smi", "model")}, check
    sudo = next(c for c in check["checks"] if c["name"] == "sudo")
    assert sudo["detail"].endswith(f"its files are written as {OPERATOR}, who may write {DROP_IN_DIR}")
    diff = json.loads(mtptui(host, "diff", "lab", "--json").stdout)
    assert diff["sides"][0].startswith("running:pid ") and diff["env"] == []  # the server's environ is readable
    done = mtptui(host, "restart", "lab", "--profile", "restored", "--yes", "--enable", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["outcome"] == "ready", done.stderr
    assert report["plan"]["written"] == f"{DROP_IN_DIR}/override.conf"
    assert report["plan"]["steps"][0]["command"].startswith("sh -c ")  # the drop-in, as the account itself
    assert [s["command"] for s in report["plan"]["steps"][1:]] == [
        "sudo -n systemctl daemon-reload", f"sudo -n systemctl reset-failed {UNIT}",
        f"sudo -n systemctl restart {UNIT}"]
    assert owner(host, f"{DROP_IN_DIR}/override.conf") == OPERATOR and owner(host, report["backup"]) == OPERATOR
    assert host.lab.run("systemctl", "is-enabled", UNIT).stdout.strip() == "enabled"
    assert "--speculative-num-steps 3" in host.lab.path(f"{DROP_IN_DIR}/override.conf").read_text()


def allowed(host: LabHost, *argv: str) -> bool:
    """Whether sudo would run ``argv`` for the operator account without a password (asked, never run)."""
    asked = host.lab.run("runuser", "-u", OPERATOR, "--", "sudo", "-n", "-l", *argv)
    return asked.returncode == 0


def test_the_rule_allows_the_unit_and_refuses_other_units(operator_host):
    """A sudoers ``*`` matches spaces: ``systemctl * UNIT`` let the account stop any unit listed before UNIT."""
    host, ctl = operator_host, "/usr/bin/systemctl"
    assert [allowed(host, ctl, verb, UNIT) for verb in ("restart", "stop", "enable")] == [True] * 3
    assert allowed(host, ctl, "show", "-p", "MainPID", UNIT)
    assert not allowed(host, ctl, "stop", "ssh.service", UNIT)
    assert not allowed(host, ctl, "restart", UNIT, "ssh.service")
    assert not allowed(host, ctl, "mask", UNIT)
    assert not allowed(host, ctl, "stop", "ssh.service")


def test_without_the_rule_check_names_it_first_and_a_restart_says_what_sudo_refused(operator_host):
    host = operator_host
    host.lab.sudoers(None)
    result = mtptui(host, "check", "lab")
    lines = result.stdout.splitlines()
    assert result.returncode == 1 and [line.split()[:2] for line in lines[:2]] == [["ok", "ssh"], ["FAIL", "sudo"]]
    assert "sudo -n refuses systemctl, journalctl (sudo: a password is required)" in lines[1]
    assert f'add "{RULE}" with visudo -f /etc/sudoers.d/mtptui' in lines[1]
    before = host.lab.path(f"{DROP_IN_DIR}/override.conf").read_text()
    restart = mtptui(host, "restart", "lab", "--profile", "restored", "--yes")
    assert restart.returncode == 1 and restart.stderr.count("\n") == 1, restart.stderr
    assert restart.stderr.startswith(f"mtptui: sudo on {OPERATOR}@{OPERATOR_ALIAS} refuses ")
    assert "(sudo: a password is required)" in restart.stderr and f'"{RULE}"' in restart.stderr
    assert host.lab.path(f"{DROP_IN_DIR}/override.conf").read_text() == before  # nothing changed
