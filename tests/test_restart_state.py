"""The restart's pieces that need no host: what a rollback undoes for each set of steps that ran, the unit's
environment merged with a profile's, the unit write that never overwrites a backup, the restart lock, and the
words of the report (CLI summary, confirm dialog, banner).

The unit write and the lock run their real shell scripts on this machine (the local transport).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from rich.console import Console

from mtptui.config.models import ProcessServer, SystemdServer
from mtptui.errors import UserError
from mtptui.ops.host_state import EndState
from mtptui.ops.restart.plan import Previous, RestartPlan
from mtptui.ops.restart.env import merge_env, shown_changes
from mtptui.ops.restart.result import Ran, RestartResult
from mtptui.ops.restart.rollback import rollback_steps
from mtptui.remote.hostlock import HostLock, HostLocked
from mtptui.remote.local import LocalTransport
from mtptui.remote.process import ProcessManager
from mtptui.remote.service_state import ServiceState
from mtptui.remote.systemd import SystemdManager
from mtptui.engines.sglang.flags import FlagSet
from mtptui.ui.restart_text import RestartView, plan_body


class Session:
    """The two fields rollback_steps reads: a transport and a manager (the local machine's)."""

    def __init__(self, manager) -> None:
        self.manager, self.transport = manager, manager.transport


def systemd_session() -> Session:
    return Session(SystemdManager(LocalTransport(), SystemdServer(unit="sglang-qwen.service")))


def process_session(tmp_path: Path) -> Session:
    server = ProcessServer(log_file=str(tmp_path / "sglang.log"), pid_file=str(tmp_path / "sglang.pid"))
    return Session(ProcessManager(LocalTransport(), server))


def plan_for(manager: str, running: bool = True) -> RestartPlan:
    previous = Previous(running, unit_path="/etc/systemd/system/sglang-qwen.service", unit_text="[Service]\n",
                        argv=["python3", "-m", "sglang.launch_server"], pid=42 if running else None)
    return RestartPlan("gpu", "restored", manager, FlagSet(), None, [], [], [], previous)


def rendered(renderable) -> str:
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


@pytest.mark.parametrize("changed, running, undo", [
    ((), True, []),
    (("write_unit",), True, [("write_unit", "write /etc/systemd/system/sglang-qwen.service"),
                             ("reload", "systemctl daemon-reload")]),
    (("write_unit", "reload", "starting"), True, [("write_unit", "write /etc/systemd/system/sglang-qwen.service"),
                                                  ("reload", "systemctl daemon-reload"),
                                                  # a crash loop's start-limit-hit would refuse the start
                                                  ("reset_failed", "systemctl reset-failed sglang-qwen.service"),
                                                  # and its own restarts would count on
                                                  ("stopping", "systemctl stop sglang-qwen.service"),
                                                  ("starting", "systemctl start sglang-qwen.service")]),
    (("write_unit", "reload", "starting"), False, [("write_unit", "write /etc/systemd/system/sglang-qwen.service"),
                                                   ("reload", "systemctl daemon-reload"),
                                                   ("stopping", "systemctl stop sglang-qwen.service")]),
    (("stopping",), True, []),  # a server outside the unit, stopped first, is not brought back
])
async def test_a_systemd_rollback_undoes_only_the_steps_that_ran(changed, running, undo):
    steps = await rollback_steps(systemd_session(), plan_for("systemd", running), None, set(changed))
    assert [(s.step, s.command.what) for s in steps] == undo


@pytest.mark.parametrize("changed, undo", [((), []), (("stopping",), ["starting"]),
                                           (("stopping", "starting"), ["starting"])])
async def test_a_process_rollback_relaunches_only_what_it_stopped(tmp_path, changed, undo):
    steps = await rollback_steps(process_session(tmp_path), plan_for("process"), None, set(changed))
    assert [s.step for s in steps] == undo  # no new pid is known: there is no new server to stop


def test_the_units_own_variables_stay_unless_dropped():
    unit = {"HF_TOKEN": "hf_x", "HF_HOME": "/data/hf", "SGLANG_ENABLE_SPEC_V2": "0", "CUDA_VISIBLE_DEVICES": "0,1"}
    profile = {"SGLANG_ENABLE_SPEC_V2": "1", "SGLANG_NEW": "yes"}
    merged, changes = merge_env(unit, profile, drop={"CUDA_VISIBLE_DEVICES"})
    assert merged == {"HF_TOKEN": "hf_x", "HF_HOME": "/data/hf", "SGLANG_ENABLE_SPEC_V2": "1", "SGLANG_NEW": "yes"}
    assert shown_changes(changes) == ["removed CUDA_VISIBLE_DEVICES=0,1 (dropped)",
                                      "kept HF_HOME=/data/hf (only in the unit)",
                                      "kept HF_TOKEN=••••(set, 4 chars) (only in the unit)",  # a secret is masked
                                      "changed SGLANG_ENABLE_SPEC_V2: 0 -> 1",
                                      "added SGLANG_NEW=yes (from the profile)"]
    with pytest.raises(UserError, match="^cannot drop SGLANG_NEW: the profile sets it"):
        merge_env(unit, profile, drop={"SGLANG_NEW"})


async def test_the_unit_write_never_overwrites_a_backup_and_changes_nothing_when_it_cannot(tmp_path):
    unit, backup = tmp_path / "sglang-qwen.service", tmp_path / "sglang-qwen.service.20260511-234907.bak"
    unit.write_text("[Service]\nExecStart=/bin/old\n")
    backup.write_text("the original unit, backed up by an earlier restart\n")
    manager = SystemdManager(LocalTransport(), SystemdServer(unit="sglang-qwen.service"))
    result = await LocalTransport().run(manager.write_command(str(unit), "[Service]\nExecStart=/bin/new\n",
                                                               str(backup)))
    assert not result.ok and "File exists" in result.err
    assert backup.read_text() == "the original unit, backed up by an earlier restart\n"
    assert unit.read_text() == "[Service]\nExecStart=/bin/old\n" and sorted(tmp_path.iterdir()) == [unit, backup]


async def test_the_host_lock_refuses_a_second_holder_by_name_and_is_free_once_released(tmp_path):
    path = str(tmp_path / ".sglang.pid.mtptui-lock")
    first = HostLock(LocalTransport(), path, "ana@laptop (mtptui restart with profile restored, pid 1)")
    second = HostLock(LocalTransport(), path, "bo@desk (mtptui restart with profile fast, pid 2)")
    await first.acquire()
    try:
        assert first.held
        with pytest.raises(HostLocked, match=r"^another restart holds the lock on this machine: ana@laptop \(mtptui "
                                             r"restart with profile restored, pid 1\), pid \d+ on the host, since "):
            await second.acquire()
    finally:
        await first.release()
    await asyncio.sleep(0.1)
    await second.acquire()
    await second.release()


def test_the_report_says_nothing_was_changed_and_where_the_host_stands():
    result = RestartResult("gpu", "restored", "systemd", "aborted", reason="write failed: No space left on device",
                           end=EndState("previous", "/etc/x.service", 42, "previous"))
    assert result.summary() == ("profile restored failed on gpu: write failed: No space left on device; nothing was "
                                "changed; the previous unit is on disk and pid 42 runs the previous launch")
    assert result.to_json()["end_state"]["text"] == "the previous unit is on disk and pid 42 runs the previous launch"
    view = RestartView("restored")
    view.finish(result)
    banner = rendered(view.render())
    assert "✗ restart stopped before any change · profile restored failed · nothing was changed" in banner
    assert "now: the previous unit is on disk and pid 42 runs the previous launch" in banner


def test_a_host_that_went_away_is_reported_with_what_was_done_and_no_rollback():
    result = RestartResult("gpu", "restored", "systemd", "unreachable", reason="cannot connect to gpu: refused",
                           changed=[Ran("write_unit", "write the new unit"), Ran("starting", "systemctl restart x",
                                                                                  certain=False)])
    assert result.summary() == ("profile restored failed on gpu: cannot connect to gpu: refused; what runs there now "
                                "is unknown; done so far: write the new unit, systemctl restart x (perhaps: the "
                                "connection dropped while it ran); not rolled back")


def test_the_confirm_dialog_shows_the_units_environment_kept_changed_and_removed():
    plan = plan_for("systemd")
    _, plan.env = merge_env({"HF_HOME": "/data/hf", "CUDA_VISIBLE_DEVICES": "0"}, {"CUDA_VISIBLE_DEVICES": "1"},
                            drop=())
    body = rendered(plan_body(plan))
    assert "Environment of the new unit  mtptui restart --drop-env NAME leaves out one it keeps" in body
    assert "changed CUDA_VISIBLE_DEVICES: 0 -> 1\nkept HF_HOME=/data/hf (only in the unit)" in body


class UnitOnDisk(SystemdManager):
    """A stand-in for systemd's answers, for a test that needs no host (the end state's matching of a template
    unit's ExecStart= against a running process is the subject; the lab tests read the real systemd): the unit
    file's text and its main pid."""

    def __init__(self, unit: str, text: str, pid: int) -> None:
        super().__init__(LocalTransport(), SystemdServer(unit=unit))
        self.text, self.pid = text, pid

    async def current_run(self, unit_path: str | None) -> tuple[str | None, int | None]:
        return self.text, self.pid

    async def state(self) -> ServiceState:
        return ServiceState("running", "active", self.pid)


async def test_the_end_state_expands_a_template_units_specifiers_with_its_instance_name() -> None:
    from mtptui.ops.host_state import read_end_state

    new, old = "[Service]\nExecStart=/bin/sleep %i\n", "[Service]\nExecStart=/bin/sleep 1\n"
    server = await asyncio.create_subprocess_exec("/bin/sleep", "300")
    try:
        manager = UnitOnDisk("sleeper@300.service", new, server.pid)
        previous = Previous(True, unit_path="/etc/systemd/system/sleeper@.service", unit_text=old, pid=41,
                            unit_name="sleeper@300.service")
        plan = RestartPlan("gpu", "restored", "systemd", FlagSet(), None, [], [], [], previous, new_unit=new)
        end = await read_end_state(Session(manager), plan)
    finally:
        server.kill()
        await server.wait()
    assert (end.unit, end.pid, end.launch) == ("new", server.pid, "new")


def test_systemctl_calls_carry_the_command_prefix():
    manager = SystemdManager(LocalTransport(), SystemdServer(unit="sglang qwen.service", command_prefix=["sudo", "-n"]))
    assert manager.restart_command().line == "sudo -n systemctl restart 'sglang qwen.service'"
    assert manager.daemon_reload_command().changes_host and not manager.systemctl("cat", "x").changes_host
    write = manager.write_command("/etc/systemd/system/a b.service", "[Service]\n", "/etc/x.bak")
    assert write.line.startswith("sudo -n sh -c ") and write.line.endswith(
        "sh '/etc/systemd/system/a b.service' /etc/x.bak")
    assert write.input == b"[Service]\n"
