"""The seed's last step on the lab host: a server started by hand (nohup) handed back to the systemd unit it
replaced, `mtptui restart --to-unit`: the hand-started process stopped, the unit written with the known-good
launch, daemon-reload, start, enable, watched; a failed start rolled back to the unit as it was and the
hand-started launch running again. Every check reads the host itself: systemctl, the unit on disk, /proc, the API.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from mtptui.engines.sglang.unit import read_unit
from tests.lab import UNIT, LabHost, operator_env
from tests.lab.hosts import unit_text
from tests.sshd import ROOT

pytestmark = pytest.mark.ssh


def cli(host: LabHost, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args, "--config", str(host.path)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=operator_env(host.lab))


def name_unit(host: LabHost, unit: str | None) -> None:
    """The host file's [server] unit: the unit the hand-started server replaced (None: not named)."""
    import tomllib

    import tomli_w

    data = tomllib.loads(host.path.read_text())
    data["server"].pop("unit", None)
    if unit is not None:
        data["server"]["unit"] = unit
    host.path.write_text(tomli_w.dumps(data))


def replaced_unit(host: LabHost) -> str:
    """The mission's host: the unit on disk (stopped, not enabled) beside the server started by hand."""
    text = unit_text(host, "redeploy-1step")
    host.unit_file.write_text(text)
    host.lab.systemctl("daemon-reload")
    name_unit(host, UNIT)
    return text


def hand_started(host: LabHost) -> int:
    return int((host.lab.srv / "sglang.pid").read_text().strip())


def systemd_says(host: LabHost, what: str) -> str:
    return host.lab.run("systemctl", what, UNIT).stdout.strip()


def steps_of(host: LabHost, pid: int) -> str:
    argv = host.lab.argv(pid)
    return argv[argv.index("--speculative-num-steps") + 1] if "--speculative-num-steps" in argv else "?"


def gone(host: LabHost, pid: int) -> bool:
    """The process has left the host (a stop may leave it a moment as a zombie of PID 1)."""
    deadline = time.monotonic() + 10
    while host.lab.argv(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not host.lab.argv(pid)


def test_the_hand_started_server_is_handed_back_to_its_unit_enabled_and_active(lab_process):
    host = lab_process
    host.wait_ready()
    before, hand_pid = replaced_unit(host), hand_started(host)
    dry = cli(host, "restart", "lab", "--profile", "restored", "--to-unit", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"note: hand-back to {UNIT}: pid {hand_pid} (started by hand) is stopped first; the unit runs the " \
           f"profile and is enabled once ready (it starts at boot)" in dry.stdout
    assert f"once ready: systemctl enable {UNIT}" in dry.stdout
    assert "daemon-reload, and relaunch the hand-started command line" in dry.stdout  # the rollback
    assert host.unit_file.read_text() == before and host.lab.argv(hand_pid)  # a dry run changes nothing
    done = cli(host, "restart", "lab", "--profile", "restored", "--to-unit", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["plan"]["hand_back_to"] == UNIT and report["plan"]["manager"] == "process → systemd"
    assert [s["step"] for s in report["plan"]["steps"]] == ["stopping", "write_unit", "reload", "reset_failed",
                                                            "starting"]
    assert [s["step"] for s in report["plan"]["after_ready"]] == ["enabled"]
    assert report["outcome"] == "ready" and [e["step"] for e in report["events"]][-3:] == ["ready", "enabled", "done"]
    assert gone(host, hand_pid)
    assert read_unit(host.unit_file.read_text(), name=UNIT).exec_argv == \
        read_unit(unit_text(host, "restored"), name=UNIT).exec_argv  # the known-good launch
    assert host.lab.path(report["backup"]).read_text() == before
    assert (systemd_says(host, "is-active"), systemd_says(host, "is-enabled")) == ("active", "enabled")
    main = host.lab.run("systemctl", "show", "-p", "MainPID", "--value", UNIT).stdout.strip()
    assert main == str(report["pid"]) and steps_of(host, report["pid"]) == "3"
    assert report["end_state"]["unit"] == "new" and report["end_state"]["launch"] == "new"
    assert host.lab.api("/v1/models")[0] == 200
    assert 'should say [server] manager = "systemd", unit = "sglang-qwen.service"' in done.stderr


def test_a_failed_start_under_the_unit_rolls_back_to_the_hand_started_launch(lab_process):
    host = lab_process
    host.wait_ready()
    before, hand_pid = replaced_unit(host), hand_started(host)
    hand_argv = host.lab.argv(hand_pid)
    done = cli(host, "restart", "lab", "--profile", "no-extra-buffer", "--to-unit", "--yes", "--force", "--json",
               "--timeout", "90")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"] == "rolled_back", report["summary"]
    assert "extra_buffer" in report["reason"]  # the crash, as the unit's journal has it
    assert [r["step"] for r in report["undone"]] == ["stopping", "reset_failed", "write_unit", "reload", "starting"]
    assert host.unit_file.read_text() == before  # the unit as it was, from the plan's copy of it
    assert (systemd_says(host, "is-active"), systemd_says(host, "is-enabled")) == ("inactive", "disabled")
    again = hand_started(host)  # the relaunch wrote the pid file
    assert again != hand_pid and gone(host, hand_pid)
    assert host.lab.argv(again) == hand_argv  # the same command line, relaunched
    assert steps_of(host, again) == "1" and report["end_state"]["launch"] == "previous"
    assert report["end_state"]["pid"] == again
    assert host.lab.api("/v1/models")[0] == 200
    assert "should say" not in done.stderr  # no host file advice after a rollback


def test_to_unit_without_a_unit_is_one_sentence_and_changes_nothing(lab_process):
    host = lab_process
    host.wait_ready()
    pid = hand_started(host)
    name_unit(host, None)
    unnamed = cli(host, "restart", "lab", "--to-unit", "--yes")
    assert unnamed.returncode != 0
    assert unnamed.stderr.strip().splitlines() == [
        "mtptui: lab's host file names no unit its hand-started server replaced: set [server] unit = "
        "\"NAME.service\" or pass --to-unit NAME.service"]
    missing = cli(host, "restart", "lab", "--to-unit", "sglang-gone.service", "--yes")
    assert missing.returncode != 0
    [line] = missing.stderr.strip().splitlines()
    assert line.startswith("mtptui: there is no systemd unit sglang-gone.service on ") and "Traceback" not in line
    assert host.lab.argv(pid) and hand_started(host) == pid  # the hand-started server was left alone


async def test_the_restore_dialog_offers_the_hand_back_and_u_then_y_runs_it(lab_process):
    """R on the hand-started host: the dialog offers the hand-back (u), and yes runs it; the operator is told what
    the host file should say now."""
    from mtptui.ops.connect import open_session
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import AppContext, MtpApp
    from mtptui.ui.screens.restart_confirm import RestartConfirmScreen
    from tests.ui_fixtures.support import SIZE, wait_until

    host = lab_process
    host.wait_ready()
    replaced_unit(host)
    config = host.config
    session = open_session(config)
    app = MtpApp(feed_for_host(session, every_s=3600.0, slow_every_s=3600.0),
                 AppContext("lab", host=config, session=session), cursor_blink=False, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("R")  # the dialog waits for both plans, each judged by the host's SGLang
        await wait_until(pilot, lambda: isinstance(app.screen, RestartConfirmScreen), timeout=90)
        dialog = app.screen
        assert dialog.handback is not None and "pressing u hands it back to the unit" in dialog.plain
        await pilot.press("u")
        assert dialog.handing_back
        await pilot.press("y")
        panel = app.screen.restart_panel
        await wait_until(pilot, lambda: panel.finished, timeout=120)
        assert panel.has_class("-ok")
        advice = [n.message for n in app._notifications if n.title == "next step"]
        assert advice and 'manager = "systemd"' in advice[0]
    assert (systemd_says(host, "is-active"), systemd_says(host, "is-enabled")) == ("active", "enabled")
    main = int(host.lab.run("systemctl", "show", "-p", "MainPID", "--value", UNIT).stdout.strip())
    assert steps_of(host, main) == "3" and host.lab.api("/v1/models")[0] == 200
