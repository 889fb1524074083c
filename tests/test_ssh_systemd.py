"""systemd mode over real SSH against the stand-in systemctl (tests/stand_in/systemctl: no test can run
systemd), which really runs the unit's ExecStart. The unit is backed up with a timestamp, the new one is
written atomically, daemon-reload and restart follow, and a rollback writes the old unit back."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtptui.config.models import SystemdServer
from mtptui.ops.connect import open_session
from mtptui.ops.restart import plan_restart
from mtptui.ops.restart_run import Restarter
from mtptui.remote.local import LocalTransport
from mtptui.remote.procinfo import read_process
from mtptui.remote.systemd import SystemdManager
from mtptui.sglang.unit import read_unit, unit_flagset
from tests.sshd import host_command, sshd, systemd_host  # noqa: F401  (fixture)

pytestmark = pytest.mark.ssh


@pytest.fixture
def host(tmp_path, sshd):
    test_host = systemd_host(tmp_path, sshd, "redeploy-1step")
    assert host_command(sshd, "systemctl", "start", test_host.unit).returncode == 0
    yield test_host
    host_command(sshd, "systemctl", "stop", test_host.unit)
    test_host.cleanup()


def state_dir(sshd) -> Path:
    return Path(sshd.env["MTPTUI_STANDIN_STATE"]) / "systemd"


def steps_of(unit_text: str, unit: str) -> str:
    flagset = unit_flagset(read_unit(unit_text, name=unit))
    return str(flagset.get("--speculative-num-steps"))


async def test_ssh_systemd_restart_backs_up_writes_reloads_and_ends_ready(sshd, host):
    unit_path = host.unit_file(state_dir(sshd).parent)
    old_text = unit_path.read_text()
    async with open_session(host.config) as session:
        old_pid = await session.manager.main_pid()
        assert await session.service_state() == (f"{host.unit} pid {old_pid}", "active")
        plan = await plan_restart(session, "restored", stamp="20260511-234907")
        assert plan.diff.sides == (f"running:pid {old_pid}", f"unit:{unit_path}", "profile:restored")
        assert [s.step for s in plan.steps] == ["write_unit", "reload", "starting"]
        result = await Restarter(session, plan, timeout_s=60).run()
        new = await read_process(session.transport, result.pid)
        assert await session.manager.is_active() == "active"
    assert result.ok, result.summary()
    backup = Path(f"{unit_path}.20260511-234907.bak")
    assert result.backup == str(backup) and backup.read_text() == old_text
    assert unit_path.read_text() == plan.new_unit and steps_of(plan.new_unit, host.unit) == "3"
    assert (state_dir(sshd) / "loaded" / host.unit).read_text() == plan.new_unit  # daemon-reload happened
    assert not list(unit_path.parent.glob(".*mtptui-tmp"))
    assert new.argv[new.argv.index("--speculative-num-steps") + 1] == "3" and result.pid != old_pid
    assert (state_dir(sshd) / "enabled" / host.unit).exists()
    assert [e.step for e in result.events][-3:] == ["ready", "enabled", "done"]


async def test_ssh_systemd_rollback_restores_the_previous_unit(sshd, host):
    unit_path = host.unit_file(state_dir(sshd).parent)
    old_text = unit_path.read_text()
    async with open_session(host.config) as session:
        plan = await plan_restart(session, "no-extra-buffer", stamp="20260512-000000")
        result = await Restarter(session, plan, timeout_s=60, force=True).run()
        running = await read_process(session.transport, await session.manager.main_pid())
    assert result.outcome == "rolled_back", result.summary()
    assert "extra_buffer" in result.reason
    assert unit_path.read_text() == old_text  # the previous unit is back...
    assert (state_dir(sshd) / "loaded" / host.unit).read_text() == old_text  # ...and loaded
    assert Path(f"{unit_path}.20260512-000000.bak").read_text() == old_text
    assert running.argv[running.argv.index("--speculative-num-steps") + 1] == "1"
    assert not (state_dir(sshd) / "enabled" / host.unit).exists()  # only a ready target is enabled


def test_systemctl_calls_carry_the_command_prefix():
    manager = SystemdManager(LocalTransport(), SystemdServer(unit="sglang qwen.service", command_prefix=["sudo", "-n"]))
    assert manager.restart_command().line == "sudo -n systemctl restart 'sglang qwen.service'"
    assert manager.daemon_reload_command().changes_host and not manager.systemctl("cat", "x").changes_host
    write = manager.write_command("/etc/systemd/system/a b.service", "[Service]\n", "/etc/x.bak")
    assert write.line.startswith("sudo -n sh -c ") and write.line.endswith(
        "sh '/etc/systemd/system/.a b.service.mtptui-tmp' '/etc/systemd/system/a b.service' /etc/x.bak")
    assert write.input == b"[Service]\n"
