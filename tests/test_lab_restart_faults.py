"""Restarts under faults on the lab host: a full or read-only disk, a failing daemon-reload, two operators at
once, SSH connections killed during the watch, a host that goes away, and a unit with its own environment.

The disks are real: a small tmpfs mounted over the unit directory in the lab host's own mount namespace, so the
host sees it full or read-only and this process does not. Each test checks what the host really
holds afterwards (the unit on disk, its backups, the server's pid) against what the restart reported.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from mtptui.errors import UserError
from mtptui.ops.connect import open_session
from mtptui.ops.restart.plan import plan_restart
from mtptui.ops.restart.env import ENV_HEADING
from mtptui.ops.restart.run import Restarter
from mtptui.ops.restart.text import render_plan
from mtptui.remote.procinfo import read_process
from tests.lab import UNIT, LabHost, operator_env, prepare_lab_host
from tests.sshd import ROOT

pytestmark = pytest.mark.ssh
PADDING = "".join(f"# padding line {i:03d}: long enough that the unit needs two pages of the small disk\n"
                  for i in range(80))


def host_side(lab, *argv: str, input: str | None = None) -> subprocess.CompletedProcess:
    """Run a command on the lab host (in its mount namespace, where its sessions see the small disk)."""
    return lab.run(*argv, input=input, timeout=30)


def the_units(name: str) -> bool:
    """A file of the unit (itself, its backups, mtptui's temporary file and lock), not the image's other units."""
    return name.startswith((UNIT, f".{UNIT}"))


def host_files(lab, directory: str) -> dict[str, str]:
    """Name -> text of every file of the unit in ``directory`` as the lab host sees it."""
    names = [name for name in host_side(lab, "ls", "-A", directory).stdout.split() if the_units(name)]
    return {name: host_side(lab, "cat", f"{directory}/{name}").stdout for name in names}


@contextmanager
def small_disk(lab, directory: str, pages: int, read_only: bool = False):
    """A tmpfs of ``pages`` 4 KiB pages over ``directory`` on the lab host, holding the unit's files."""
    files = {p.name: p.read_text() for p in lab.path(directory).iterdir() if p.is_file() and the_units(p.name)}
    mounted = host_side(lab, "mount", "-t", "tmpfs", "-o", f"size={pages * 4}k,mode=755", "tmpfs", directory)
    assert mounted.returncode == 0, mounted.stderr
    try:
        for name, text in files.items():
            assert host_side(lab, "sh", "-c", 'cat > "$1"', "sh", f"{directory}/{name}", input=text).returncode == 0
        if read_only:
            assert host_side(lab, "mount", "-o", "remount,ro", directory).returncode == 0
        yield
    finally:
        host_side(lab, "umount", "-l", directory)


def main_pid(host: LabHost) -> int:
    return int(host.lab.run("systemctl", "show", "-p", "MainPID", "--value", UNIT).stdout.strip() or 0)


def steps(result) -> list[str]:
    return [event.step for event in result.events]


def padded(host: LabHost) -> str:
    """The unit grown past one page (comments only), so a backup of it can be cut short by a full disk."""
    text = host.unit_file.read_text().replace("[Install]\n", PADDING + "[Install]\n")
    host.unit_file.write_text(text)
    return text


@pytest.mark.parametrize("read_only", [False, True], ids=["disk-full", "read-only"])
async def test_a_disk_that_cannot_take_the_backup_changes_nothing_and_leaves_no_partial_backup(lab_systemd,
                                                                                               read_only):
    lab, units = lab_systemd.lab, lab_systemd.unit_file.parent
    unit_dir = str(Path(lab_systemd.unit_path).parent)
    lock = f".{UNIT}.mtptui-lock"
    lab_systemd.wait_ready()
    original, before = padded(lab_systemd), main_pid(lab_systemd)
    (units / lock).touch()  # left by an earlier restart: it can be locked on a read-only disk too
    # four pages: the lock's note takes one, the unit two; a backup of the unit finds one page left
    with small_disk(lab, unit_dir, pages=4, read_only=read_only):
        async with open_session(lab_systemd.config) as session:
            plan = await plan_restart(session, "restored")
            result = await Restarter(session, plan, timeout_s=60).run()
        on_disk = host_files(lab, unit_dir)
    assert result.outcome == "aborted", result.summary()
    assert result.summary().endswith("nothing was changed; the previous unit is on disk and pid "
                                     f"{before} runs the previous launch")
    assert sorted(on_disk) == sorted([UNIT, lock]) and on_disk[UNIT] == original  # not even part of a backup
    assert main_pid(lab_systemd) == before  # the healthy server was left alone
    assert "rolling_back" not in steps(result) and "reload" not in steps(result)
    assert result.end.unit == "previous" and result.end.pid == before and result.end.launch == "previous"


async def test_a_failed_daemon_reload_undoes_the_unit_and_never_restarts_the_server(lab_systemd, tmp_path):
    lab_systemd.wait_ready()
    original, before = lab_systemd.unit_file.read_text(), main_pid(lab_systemd)
    wrapper = tmp_path / "systemctl"  # systemctl whose first daemon-reload fails, first on the host's PATH
    wrapper.write_text(f'#!/bin/sh\nif [ "$1" = daemon-reload ] && [ ! -e {tmp_path}/failed ]; then\n'
                       f'  touch {tmp_path}/failed; echo "Failed to reload daemon: Access denied" >&2; exit 1\nfi\n'
                       f'exec /usr/bin/systemctl "$@"\n')
    wrapper.chmod(0o755)
    lab_systemd.lab.install(wrapper)
    async with open_session(lab_systemd.config) as session:
        result = await Restarter(session, await plan_restart(session, "restored"), timeout_s=60).run()
    assert result.outcome == "rolled_back", result.summary()
    assert "Access denied" in result.reason and "the server that ran before was never stopped" in result.summary()
    assert lab_systemd.unit_file.read_text() == original and main_pid(lab_systemd) == before
    assert [e.step for e in result.events if e.launch == "rollback"] == ["rolling_back", "write_unit", "reload",
                                                                         "rolled_back", "done"]
    assert [r.step for r in result.changed] == ["write_unit", "reload"]


async def test_two_restarts_a_third_of_a_second_apart_the_second_is_refused_and_the_first_ends_right(lab_systemd):
    lab_systemd.wait_ready()
    units, original = lab_systemd.unit_file.parent, lab_systemd.unit_file.read_text()
    async with open_session(lab_systemd.config) as first, open_session(lab_systemd.config) as second:
        crashing = await plan_restart(first, "no-extra-buffer")
        healthy = await plan_restart(second, "restored")
        running = asyncio.ensure_future(Restarter(first, crashing, timeout_s=60, force=True).run())
        await asyncio.sleep(0.3)
        with pytest.raises(UserError, match=r"another restart holds the lock on root@gpu-lab: \S+@\S+ \(mtptui "
                                            r"restart with profile no-extra-buffer, pid \d+\), pid \d+ on the host, "
                                            r"since 20\d\d-"):
            await Restarter(second, healthy, timeout_s=60).run()
        result = await running
    assert result.outcome == "rolled_back" and "extra_buffer" in result.reason  # the crash, not the other's ready
    assert [p.read_text() for p in units.glob("*.bak")] == [original]
    assert lab_systemd.unit_file.read_text() == original


async def test_a_restart_whose_mtptui_dies_releases_the_lock(lab_process):
    lab_process.wait_ready()
    lock = lab_process.lab.srv / ".sglang.pid.mtptui-lock"
    cli = subprocess.Popen([sys.executable, "-m", "mtptui.cli.main", "restart", "lab", "--config",
                            str(lab_process.path), "--profile", "restored", "--yes", "--timeout", "120"],
                           env=operator_env(lab_process.lab), cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: lock.exists() and "since" in lock.read_text(), "the lock taken")
        assert "mtptui restart with profile restored" in lock.read_text()
    finally:
        os.killpg(cli.pid, signal.SIGKILL)
        cli.wait()
    wait_for(lambda: lab_process.lab.run("flock", "-n", str(lock), "true").returncode == 0, "the lock released")
    async with open_session(lab_process.config) as session:
        result = await Restarter(session, await plan_restart(session, "redeploy-1step"), timeout_s=60).run()
    assert result.outcome == "ready", result.summary()


def wait_for(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"never saw {what}")


@pytest.fixture(params=["systemd", "process"])
def lab_host(request, lab, tmp_path, monkeypatch):
    host = prepare_lab_host(lab, tmp_path, monkeypatch, request.param)
    host.wait_ready()
    yield host
    lab.reset()


async def kill_while_starting(lab, events: list, task: asyncio.Future, most: int = 4) -> int:
    """Drop every SSH connection every 0.4 s from the new server's start until it is ready (``most`` times, so a
    loaded machine still gets to reconnect in between); how many drops."""
    kills = 0
    while not task.done() and "ready" not in [e.step for e in events] and kills < most:
        await asyncio.sleep(0.4)
        if any(e.step == "starting" and e.detail.get("pid") for e in events):
            kills += lab.sshd.kill_connections() > 0
    return kills


async def test_ssh_connections_killed_while_the_new_server_starts_do_not_fail_the_restart(lab_host):
    events: list = []
    async with open_session(lab_host.config) as session:
        plan = await plan_restart(session, "restored")
        task = asyncio.ensure_future(Restarter(session, plan, timeout_s=90, on_event=events.append).run())
        kills = await kill_while_starting(lab_host.lab, events, task)
        result = await task
    assert kills >= 2, "the server was ready before two connections could be dropped"
    assert result.outcome == "ready", result.summary()
    assert "rolling_back" not in steps(result) and "connection" in steps(result)
    argv = lab_host.lab.argv(result.pid)
    assert argv[argv.index("--speculative-num-steps") + 1] == "3"


async def test_a_host_that_stays_away_during_the_watch_is_reported_as_unknown_not_rolled_back(lab_systemd):
    lab_systemd.wait_ready()
    lab, events = lab_systemd.lab, []
    async with open_session(lab_systemd.config) as session:
        plan = await plan_restart(session, "restored")
        # the watch and the reconnect each long enough for a few attempts: the host stays away past both
        restarter = Restarter(session, plan, timeout_s=3, on_event=events.append, reconnect_s=2)
        task = asyncio.ensure_future(restarter.run())
        while not any(e.step == "starting" and e.detail.get("pid") for e in events):
            await asyncio.sleep(0.02)
        lab.sshd.stop_listening()
        try:
            result = await task
        finally:
            lab.sshd.listen_again()
    summary = result.summary()
    assert result.outcome == "unreachable", summary
    assert "what runs there now is unknown" in summary and "not rolled back" in summary
    assert "rolled back to" not in summary and "rolling_back" not in steps(result)
    assert [r.step for r in result.changed] == ["write_unit", "reload", "reset_failed", "starting"]
    assert "write the new unit" in summary and result.end is None
    assert lab_systemd.unit_file.read_text() == plan.new_unit  # what the report says it did, the host shows
    assert lab_systemd.lab.path(plan.backup).read_text() == plan.previous.unit_text


async def test_a_restore_keeps_the_units_own_environment_unless_dropped(lab_systemd):
    unit = lab_systemd.unit_file
    own = 'Environment="HF_TOKEN=hf_labsecret" "HF_HOME=/data/hf cache"\nEnvironment=CUDA_VISIBLE_DEVICES=0,1\n'
    unit.write_text(unit.read_text().replace("[Service]\n", "[Service]\n" + own))
    async with open_session(lab_systemd.config) as session:
        plan = await plan_restart(session, "restored")
        statuses = {change.var: change.status for change in plan.env}
        text, as_json = render_plan(plan), plan.to_json()
        dropping = await plan_restart(session, "restored", drop_env=["HF_HOME"])
        with pytest.raises(UserError, match="cannot drop NOPE: the unit has no such Environment= variable"):
            await plan_restart(session, "restored", drop_env=["NOPE"])
        dry_run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "restart", "lab", "--config",
                                  str(lab_systemd.path), "--dry-run", "--json", "--drop-env", "HF_HOME"],
                                 env=operator_env(lab_systemd.lab), cwd=ROOT, capture_output=True, text=True)
        result = await Restarter(session, plan, timeout_s=60).run()
        new = await read_process(session.transport, result.pid)
    assert dry_run.returncode == 0, dry_run.stderr
    assert {e["var"]: e["status"] for e in json.loads(dry_run.stdout)["environment"]}["HF_HOME"] == "removed"
    assert statuses == {"CUDA_VISIBLE_DEVICES": "kept", "HF_HOME": "kept", "HF_TOKEN": "kept",
                        "SGLANG_ENABLE_SPEC_V2": "same"}  # the unit of the bad redeploy has it from its profile
    section = text.split(ENV_HEADING + "\n")[1].split("\n\n")[0].splitlines()
    assert section[:2] == ["  kept CUDA_VISIBLE_DEVICES=0,1 (only in the unit)",
                           "  kept HF_HOME=/data/hf cache (only in the unit)"]
    assert len(section) == 3 and section[2].startswith("  kept HF_TOKEN=")  # its value as secrets are shown
    assert "hf_labsecret" not in text and "hf_labsecret" not in dry_run.stdout  # masked in the plan, text and JSON
    assert {"var": "CUDA_VISIBLE_DEVICES", "status": "kept", "before": "0,1", "after": "0,1",
            "from": None} in as_json["environment"]
    assert {c.var: c.status for c in dropping.env}["HF_HOME"] == "removed" and "HF_HOME" not in dropping.new_unit
    assert result.ok, result.summary()
    assert {k: new.env[k] for k in ("HF_TOKEN", "HF_HOME", "CUDA_VISIBLE_DEVICES", "SGLANG_ENABLE_SPEC_V2")} == {
        "HF_TOKEN": "hf_labsecret", "HF_HOME": "/data/hf cache", "CUDA_VISIBLE_DEVICES": "0,1",
        "SGLANG_ENABLE_SPEC_V2": "1"}
