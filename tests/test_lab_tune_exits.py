"""Rough exits of `mtptui tune` on the lab host: SIGTERM, SIGHUP and a second Ctrl+C during the restore all put
the original launch back and write the JSON; a tune holds the host's lock from its first arm to its restore
and checks the server before each measurement; a tune killed outright leaves a marker that check, diff and the
dashboard name, with the profile to restore.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mtptui.ops.connect import open_session
from mtptui.ops.tune.plan import plan_tune
from mtptui.ops.tune.runner import Tuner
from tests.lab import UNIT, operator_env
from tests.sshd import ROOT

pytestmark = pytest.mark.ssh
# Short answers: these tunes are stopped in their first measurement (the simulated server decodes in real time).
WORKLOAD = ["--grid", "steps=3", "--concurrency", "1,4", "--requests", "3", "--max-tokens", "16",
            "--canary-tokens", "16", "--yes"]


def steps_running(lab) -> int:
    status, body = lab.api("/server_info")
    assert status == 200, body
    return json.loads(body)["speculative_num_steps"]


def start_tune(host, json_file: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "mtptui.cli.main", "tune", "lab", "--config", str(host.path),
                             *WORKLOAD, "--json", str(json_file)], cwd=ROOT, env=operator_env(host.lab),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_line(process: subprocess.Popen, text: str, seen: list[str], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        seen.append(line)
        if text in line:
            return
        if not line and process.poll() is not None:
            break
    raise AssertionError(f"{text!r} never came:\n{''.join(seen)[-3000:]}")


def marker_of(host) -> Path:
    return (host.unit_file.parent if host.manager == "systemd" else host.lab.srv) / \
        (f".{UNIT}.mtptui-tune" if host.manager == "systemd" else ".sglang.pid.mtptui-tune")


@pytest.mark.parametrize("signals", [("SIGTERM",), ("SIGHUP",), ("SIGINT", "SIGINT")],
                         ids=["sigterm", "sighup", "second-ctrl-c"])
def test_a_signalled_tune_restores_the_original_and_writes_its_json(lab_process, tmp_path, signals) -> None:
    lab_process.wait_ready()
    out, seen = tmp_path / "tune.json", []
    tune = start_tune(lab_process, out)
    try:
        wait_line(tune, "[steps3] c=1:", seen)  # the arm runs and was measured once
        assert marker_of(lab_process).exists()  # while an arm may run, the host says so
        os.kill(tune.pid, getattr(signal, signals[0]))
        if len(signals) > 1:
            wait_line(tune, "restarting with redeploy-1step", seen)
            os.kill(tune.pid, getattr(signal, signals[1]))  # during the restore
        _, rest = tune.communicate(timeout=300)
    finally:
        if tune.poll() is None:
            os.killpg(tune.pid, signal.SIGKILL)
    stderr = "".join(seen) + rest
    assert tune.returncode == 130, stderr
    assert steps_running(lab_process.lab) == 1  # the mission's redeploy (steps 1) runs again
    run = json.loads(out.read_text())
    assert run["aborted"] == "aborted" and run["kept"] == "original", run
    assert not marker_of(lab_process).exists()
    assert "Traceback" not in stderr


async def test_the_tune_holds_the_lock_throughout_and_checks_the_server_before_each_measurement(lab_systemd):
    lab, attempts, replaced = lab_systemd.lab, [], []
    lab_systemd.wait_ready()
    async with open_session(lab_systemd.config) as session:
        plan = await plan_tune(session, grid=["steps=3"], concurrency="1,4", requests=3, max_tokens=16)

        def on_event(event) -> None:
            if event.kind == "measured" and event.message.startswith("c=1:") and not attempts:
                other = subprocess.Popen(  # another operator's restart, during the tune
                    [sys.executable, "-m", "mtptui.cli.main", "restart", "lab", "--config", str(lab_systemd.path),
                     "--profile", "restored", "--yes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                    cwd=ROOT, env=operator_env(lab))
                replaced.append(lab.run("systemctl", "restart", UNIT))  # and someone's systemctl, by hand, meanwhile
                out, err = other.communicate(timeout=120)
                attempts.append(subprocess.CompletedProcess(other.args, other.returncode, out, err))

        run = await Tuner(session, plan, on_event=on_event).run()
    assert attempts[0].returncode == 1 and "another restart holds the lock" in attempts[0].stderr
    assert "mtptui tune, original redeploy-1step" in attempts[0].stderr
    arm = run.arms[0]
    assert arm.status == "failed" and arm.reason.startswith("the server was replaced before c=4 was measured")
    assert len(arm.results) == 1  # c=1 only: c=4 was never measured on the replaced server
    assert run.kept == "original" and run.restore == "lab runs redeploy-1step again"  # under the same lock


async def restore_from_the_dashboard(host, readers: tuple[subprocess.Popen, ...] = ()) -> list[str]:
    """The dashboard of ``host`` (over SSH, as `mtptui HOST` opens it): the toasts it raises in its first seconds,
    then R and y, as an operator told by the toast would: it restores the known-good profile. The toasts.
    ``readers`` (commands that only read the host, started before) end before R is pressed."""
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import AppContext, MtpApp
    from mtptui.ui.screens.confirm import ConfirmScreen
    from tests.ui_fixtures.support import SIZE, wait_handled, wait_until

    session = open_session(host.config)
    app = MtpApp(feed_for_host(session, every_s=3600.0, slow_every_s=3600.0),
                 AppContext("lab", host=host.config, session=session), cursor_blink=False, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any(n.title == "tune interrupted" for n in app._notifications), timeout=60)
        toasts = [n.message for n in app._notifications if n.title == "tune interrupted"]
        await wait_handled(lambda: all(reader.poll() is not None for reader in readers), timeout=180)
        await wait_until(pilot, lambda: app.live.host is not None, timeout=90)
        await pilot.press("R")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=120)
        await pilot.press("y")
        panel = app.screen.restart_panel
        await wait_until(pilot, lambda: panel.finished, timeout=180)
        assert panel.view is not None and panel.view.outcome == "ready", panel.view
    return toasts


async def test_a_tune_killed_outright_leaves_a_marker_that_check_diff_and_the_dashboard_name(lab_process,
                                                                                             tmp_path) -> None:
    lab_process.wait_ready()
    seen: list[str] = []
    tune = start_tune(lab_process, tmp_path / "tune.json")
    wait_line(tune, "[steps3] c=1:", seen)
    os.killpg(tune.pid, signal.SIGKILL)  # no handler runs: the host is left on the arm
    tune.wait()

    def start(*argv: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "mtptui.cli.main", *argv, "--config", str(lab_process.path)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                env=operator_env(lab_process.lab))

    def finished(process: subprocess.Popen) -> subprocess.CompletedProcess:
        out, err = process.communicate(timeout=180)
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    def cli(*argv: str) -> subprocess.CompletedProcess:
        return finished(start(*argv))

    # check and diff only read the host: side by side, and beside the dashboard until it restores
    readers = start("check", "lab"), start("diff", "lab")
    toasts = await restore_from_the_dashboard(lab_process, readers)  # the toast's own advice: it restores there
    check, diff = (finished(process) for process in readers)
    server = next(line for line in check.stdout.splitlines() if line.split()[1:2] == ["server"])
    assert server.startswith("FAIL") and "a tune did not finish on lab" in server, check.stdout
    assert "original = redeploy-1step" in server and "mtptui restart lab --profile redeploy-1step" in check.stdout
    assert "note: a tune did not finish on lab" in diff.stderr
    assert "mtptui restart lab --profile redeploy-1step" in toasts[0] and "press r" in toasts[0]
    assert not marker_of(lab_process).exists() and "a tune did not finish" not in cli("check", "lab").stdout
