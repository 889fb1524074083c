"""What real systemd does to a restart, on the lab host (systemd 252 as PID 1, its journald, the real unit).

The seed's restore (write, daemon-reload, reset-failed, restart, watch, enable only when asked) read back from
`systemctl show`; a profile that crashes under ``Restart=always`` / ``on-failure`` caught within one restart
cycle and rolled back, also past ``start-limit-hit``; one that crashes without ``Restart=``; an ExecStart= that
lives in the drop-in ``systemctl edit`` writes; EnvironmentFile= values in the diff and the plan; the stop
timeout against SGLang's drain; a bench in flight during a restart. Every check reads what systemd itself says.
`benchmarks/lab_figures.py --scenarios-only` prints these tests as a table with their outcome.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from mtptui.ops.connect import open_session
from mtptui.ops.restart.plan import plan_restart
from mtptui.ops.restart.run import Restarter
from mtptui.ops.restart.text import render_plan
from tests.lab import UNIT, LabHost, operator_env
from tests.lab.hosts import UNIT_TEMPLATE, unit_text
from tests.sshd import ROOT

pytestmark = pytest.mark.ssh
DROP_IN = f"/etc/systemd/system/{UNIT}.d/override.conf"
SHOWN = ("ActiveState", "SubState", "Result", "ExecMainStatus", "NRestarts", "MainPID")


def show(host: LabHost, *properties: str) -> dict[str, str]:
    out = host.lab.systemctl("show", *(arg for p in properties for arg in ("-p", p)), UNIT)
    return dict(line.partition("=")[::2] for line in out.splitlines())


def run_unit(host: LabHost, text: str, *, drop_in: str | None = None) -> None:
    """Put ``text`` (and ``drop_in``) on the host as the unit, reload, and restart it with the failed state reset."""
    host.unit_file.write_text(text)
    if drop_in is not None:
        path = host.lab.path(DROP_IN)
        path.parent.mkdir(exist_ok=True)
        path.write_text(drop_in)
    host.lab.systemctl("daemon-reload")
    host.lab.systemctl("reset-failed", UNIT)
    host.lab.systemctl("restart", UNIT)
    host.wait_for("ready to roll", after=len(host.log_text()))


def steps_of(host: LabHost, pid: int | None) -> str:
    argv = host.lab.argv(pid) if pid else []
    return argv[argv.index("--speculative-num-steps") + 1] if "--speculative-num-steps" in argv else "?"


def cli(host: LabHost, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args, "--config", str(host.path)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=operator_env(host.lab))


async def restart(host: LabHost, profile: str, *, enable: bool = False, force: bool = False, events=None,
                  stamp: str | None = None):
    async with open_session(host.config) as session:
        plan = await plan_restart(session, profile, stamp=stamp, enable=enable)
        result = await Restarter(session, plan, timeout_s=90, force=force,
                                 on_event=events.append if events is not None else None).run()
    return plan, result


async def test_the_restore_writes_reloads_restarts_and_enables_only_when_asked(lab_systemd):
    """write, daemon-reload, reset-failed, restart, watch until ready; `enable` only with --enable (the dialog
    offers it while the unit is not enabled); the end read back from systemctl show."""
    host = lab_systemd
    host.wait_ready()
    before, old_pid = host.unit_file.read_text(), show(host, "MainPID")["MainPID"]
    done = cli(host, "restart", "lab", "--profile", "restored", "--yes", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr
    assert [s["step"] for s in report["plan"]["steps"]] == ["write_unit", "reload", "reset_failed", "starting"]
    assert report["plan"]["after_ready"] == [] and report["plan"]["can_enable"] is True
    assert "systemctl enable sglang-qwen.service once the server is ready" in done.stderr  # offered, not done
    assert host.lab.run("systemctl", "is-enabled", UNIT).stdout.strip() == "disabled"
    end = report["end_state"]["service"]["properties"]
    assert {k: end[k].strip() for k in SHOWN} == {"ActiveState": "active", "SubState": "running",
                                                    "Result": "success", "ExecMainStatus": "0", "NRestarts": "0",
                                                    "MainPID": str(report["pid"])}
    assert report["pid"] != int(old_pid) and steps_of(host, report["pid"]) == "3"
    assert host.lab.path(report["backup"]).read_text() == before
    assert show(host, "NeedDaemonReload")["NeedDaemonReload"] == "no"  # systemd runs what is on disk

    plan, result = await restart(host, "redeploy-1step", enable=True)
    assert result.ok, result.summary()
    assert [s.step for s in plan.finish] == ["enabled"] and [e.step for e in result.events][-3:] == [
        "ready", "enabled", "done"]
    assert host.lab.run("systemctl", "is-enabled", UNIT).stdout.strip() == "enabled"
    assert steps_of(host, result.pid) == "1" and result.end.service.facts["MainPID"].strip() == str(result.pid)


def crash_loop_unit(host: LabHost, restart_setting: str) -> str:
    return unit_text(host, "redeploy-1step",
                     UNIT_TEMPLATE.replace("Restart=no\n", f"Restart={restart_setting}\nRestartSec=1\n"))


@pytest.mark.parametrize("restart_setting", ["always", "on-failure"])
async def test_a_crash_loop_under_restart_is_caught_within_one_cycle_and_rolled_back(lab_systemd, restart_setting):
    host = lab_systemd
    host.wait_ready()
    run_unit(host, crash_loop_unit(host, restart_setting))
    original, events = host.unit_file.read_text(), []
    _, result = await restart(host, "no-extra-buffer", force=True, events=events)
    assert result.outcome == "rolled_back", result.summary()
    crashes = [e for e in events if e.step == "crashed" and e.launch == "target"]
    assert crashes and "extra_buffer" in result.reason  # the crash, as the journal has it
    assert host.log_text().count("Scheduled restart job") <= 2  # caught in the first cycles, not at the timeout
    assert host.unit_file.read_text() == original
    state = show(host, *SHOWN)
    assert (state["ActiveState"], state["NRestarts"]) == ("active", "0")
    assert steps_of(host, int(state["MainPID"])) == "1"


async def test_a_rollback_is_not_defeated_by_start_limit_hit(lab_systemd):
    """The crashing profile's first automatic restart hits StartLimitBurst=1: systemd refuses every start of the
    unit from then on, until `systemctl reset-failed`, which the rollback runs before it starts the known-good
    unit again."""
    host = lab_systemd
    host.wait_ready()
    limited = crash_loop_unit(host, "always").replace("RestartSec=1\n", "RestartSec=0\n").replace(
        "[Unit]\n", "[Unit]\nStartLimitIntervalSec=120\nStartLimitBurst=1\n")
    run_unit(host, limited)
    events: list = []
    _, result = await restart(host, "no-extra-buffer", force=True, events=events)
    journal = host.log_text()
    assert "Start request repeated too quickly" in journal  # start-limit-hit, before the rollback started it
    assert result.outcome == "rolled_back", result.summary()
    rollback = [e.step for e in events if e.launch == "rollback"]
    assert rollback[:6] == ["rolling_back", "write_unit", "reload", "reset_failed", "stopping", "starting"]
    state = show(host, *SHOWN)
    assert state["ActiveState"] == "active" and steps_of(host, int(state["MainPID"])) == "1"


async def test_a_crash_without_restart_is_caught_and_the_previous_unit_comes_back(lab_systemd):
    host = lab_systemd
    host.wait_ready()
    original = host.unit_file.read_text()
    plan, result = await restart(host, "no-extra-buffer", force=True)
    assert result.outcome == "rolled_back" and "extra_buffer" in result.reason, result.summary()
    assert host.unit_file.read_text() == original and host.lab.systemctl("cat", UNIT).endswith(original)
    assert host.lab.path(plan.backup).read_text() == original
    state = show(host, *SHOWN)
    assert state["ActiveState"] == "active" and steps_of(host, int(state["MainPID"])) == "1"
    assert host.lab.run("systemctl", "is-enabled", UNIT).stdout.strip() == "disabled"  # never asked to


def drop_in_unit(host: LabHost) -> tuple[str, str]:
    """(the unit file with a placeholder ExecStart=, the drop-in `systemctl edit` would leave: the reset line,
    then the redeploy's ExecStart=)."""
    redeploy = unit_text(host, "redeploy-1step")
    exec_start = redeploy[redeploy.index("ExecStart="):redeploy.index("Restart=")]
    return UNIT_TEMPLATE, f"[Service]\nExecStart=\n{exec_start}"


async def test_an_execstart_in_a_drop_in_is_diffed_rewritten_there_and_rolled_back(lab_systemd):
    host = lab_systemd
    host.wait_ready()
    fragment, drop_in = drop_in_unit(host)
    run_unit(host, fragment, drop_in=drop_in)
    diff = json.loads(cli(host, "diff", "lab", "--json").stdout)
    steps_row = next(r for r in diff["rows"] if r["flag"] == "--speculative-num-steps")
    assert diff["sides"][1] == f"unit:{host.unit_path}" and steps_row["values"] == ["1", "1", "3"]
    plan, result = await restart(host, "restored", stamp="20260511-234907")
    assert result.ok, result.summary()
    assert plan.written == DROP_IN and plan.facts["DropInPaths"] == DROP_IN
    assert f"DropInPaths={DROP_IN}" in render_plan(plan) and plan.backup == f"{DROP_IN}.20260511-234907.bak"
    written = host.lab.path(DROP_IN).read_text()
    assert written.startswith("[Service]\nExecStart=\n") and "--speculative-num-steps 3" in written
    assert host.unit_file.read_text() == fragment  # the unit file itself is untouched
    assert host.lab.path(plan.backup).read_text() == drop_in
    assert show(host, "DropInPaths")["DropInPaths"] == DROP_IN  # the backup is not loaded as a drop-in
    assert steps_of(host, result.pid) == "3"
    _, crashed = await restart(host, "no-extra-buffer", force=True)
    assert crashed.outcome == "rolled_back" and host.lab.path(DROP_IN).read_text() == written


async def test_environment_file_values_are_in_the_diff_and_the_plan_and_its_secrets_are_masked(lab_systemd):
    host = lab_systemd
    host.wait_ready()
    env_file = host.lab.path("/etc/sglang/qwen.env")
    env_file.parent.mkdir(exist_ok=True)
    env_file.write_text('# the host\'s own settings\nHF_TOKEN=hf_envfilesecret42\nNCCL_DEBUG="INFO"\n'
                        'SGLANG_ENABLE_SPEC_V2=0\n')
    run_unit(host, unit_text(host, "redeploy-1step").replace("[Service]\n",
                                                             "[Service]\nEnvironmentFile=/etc/sglang/qwen.env\n"))
    diff = cli(host, "diff", "lab", "--json")
    env = {row["var"]: row["values"] for row in json.loads(diff.stdout)["env"]}
    assert env["NCCL_DEBUG"] == ["INFO", "INFO", None] and env["SGLANG_ENABLE_SPEC_V2"] == ["0", "0", "1"]
    assert "HF_TOKEN" in env and "hf_envfilesecret42" not in diff.stdout
    async with open_session(host.config) as session:
        plan = await plan_restart(session, "restored")
    text, as_json = render_plan(plan), json.dumps(plan.to_json())
    kept = {c.var: (c.status, c.where) for c in plan.env}
    assert kept["NCCL_DEBUG"] == ("kept", "EnvironmentFile /etc/sglang/qwen.env")
    assert kept["HF_TOKEN"] == ("kept", "EnvironmentFile /etc/sglang/qwen.env")
    assert "SGLANG_ENABLE_SPEC_V2 is set by EnvironmentFile=/etc/sglang/qwen.env too" in text
    assert "HF_TOKEN=" in text and "hf_envfilesecret42" not in text + as_json


async def test_a_unit_changed_on_disk_since_systemd_loaded_it_is_said_in_the_plan(lab_systemd):
    """What runs is what systemd loaded, not what the file says until a daemon-reload (NeedDaemonReload=yes)."""
    host = lab_systemd
    host.wait_ready()
    host.unit_file.write_text(host.unit_file.read_text().replace("[Service]\n", "[Service]\nNice=5\n"))
    async with open_session(host.config) as session:
        text = render_plan(await plan_restart(session, "restored"))
    assert show(host, "NeedDaemonReload")["NeedDaemonReload"] == "yes"
    assert f"note: {UNIT} changed on disk since systemd loaded it: what runs may not be what its files say" in text


async def test_the_plan_says_what_the_units_kill_mode_and_stop_timeout_do_to_requests_in_flight(lab_systemd):
    """Read from systemctl show: the default KillMode=control-group cuts every request; mixed drains until
    TimeoutStopSec; SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT is said to bound nothing (neither release reads it)."""
    host = lab_systemd
    host.wait_ready()
    run_unit(host, unit_text(host, "redeploy-1step").replace("[Service]\n", "[Service]\nTimeoutStopSec=5\n"))
    async with open_session(host.config) as session:
        group = render_plan(await plan_restart(session, "restored"))
    mixed_unit = unit_text(host, "redeploy-1step").replace(
        "[Service]\n", "[Service]\nKillMode=mixed\nTimeoutStopSec=5\nEnvironment=SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT=3\n")
    run_unit(host, mixed_unit)
    async with open_session(host.config) as session:
        mixed = render_plan(await plan_restart(session, "restored"))
    assert "note: stop: KillMode=control-group, TimeoutStopSec=5s; SIGTERM reaches SGLang's scheduler and " \
           "detokenizer too, which end at once: every request in flight is cut" in group
    assert "note: stop: KillMode=mixed, TimeoutStopSec=5s; SIGTERM reaches SGLang's main process alone: it drains " \
           "the requests in flight but keeps accepting new ones meanwhile, with no bound of its own " \
           "(SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT is not read by this release), until the stop timeout " \
           "ends it with SIGKILL: the requests in flight then are cut" in mixed
    assert "note: SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT=3 is set, but SGLang 0.5.12.post1 does not read it" in mixed
    assert "SIGKILL to itself" in mixed and "SIGKILL to itself" not in group


async def test_a_bench_in_flight_during_a_restart_ends_as_failed_requests(lab_systemd, tmp_path):
    """The server is stopped under the bench (SIGTERM; systemd kills it after TimeoutStopSec=2): the streams in
    flight end as failed requests and the bench finishes, with its report."""
    host = lab_systemd
    host.wait_ready()
    run_unit(host, unit_text(host, "redeploy-1step").replace("[Service]\n", "[Service]\nTimeoutStopSec=2\n"))
    out = tmp_path / "bench.json"
    bench = subprocess.Popen([sys.executable, "-m", "mtptui.cli.main", "bench", "lab", "--config", str(host.path),
                              "--requests", "2", "--concurrency", "2", "--max-tokens", "3000", "--ignore-eos",
                              "--warmup", "0", "--json", str(out)],
                             cwd=ROOT, env=operator_env(host.lab), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        host.wait_for("Decode batch", timeout=60)  # the bench's requests are being decoded (~90 s each)
        _, result = await restart(host, "restored")
        code = await asyncio.to_thread(bench.wait, 120)  # a hang would end here, as a failure
    finally:
        bench.kill()
    report = json.loads(out.read_text())
    assert result.ok, result.summary()
    assert code in (0, 1) and report["summary"]["requests_failed"] == 2, bench.stderr.read()
    assert all(not request["ok"] and request["error"] for request in report["requests"])
