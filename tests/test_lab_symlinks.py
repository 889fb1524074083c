"""Writes as root never follow a link planted on the host: the unit's temporary files, its backup, the lock
files beside the unit and the pid file, and the pid file itself.

Before, a symlink at the unit's fixed temporary name (``.UNIT.mtptui-tmp``), its temporary backup
(``.mtptui-tmp.bak``) or a lock file was followed: the link's target got the unit text (and mode 0644), the unit
became a symlink to it, and the restart reported ``ready``. Now the temporary files come from mktemp, copies and
renames never follow a link (``cp -P --remove-destination``, ``ln -T``, ``mv -T``), and a lock file is taken only
when it is a regular file. Each test plants the links on the lab host, restarts, and reads what the host holds.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mtptui.errors import UserError
from mtptui.ops.connect import open_session
from mtptui.ops.restart.plan import plan_restart
from mtptui.ops.restart.run import Restarter
from tests.lab import UNIT

pytestmark = pytest.mark.ssh
PRECIOUS = "root:x:0:0:a file the links point at, which nothing may write\n"


def victims(tmp_path: Path, *names: str, text: str = PRECIOUS) -> dict[str, Path]:
    """One precious file per name holding ``text``, outside the host's directories, mode 0600."""
    made = {}
    for name in names:
        path = tmp_path / f"victim-{name}"
        path.write_text(text)
        path.chmod(0o600)
        made[name] = path
    return made


def untouched(files: dict[str, Path], text: str = PRECIOUS) -> dict[str, str]:
    """The victims that were written or had their mode changed (empty when every link was left alone)."""
    return {name: f"{path.read_text()[:60]!r} mode {stat.S_IMODE(path.stat().st_mode):o}"
            for name, path in files.items()
            if path.read_text() != text or stat.S_IMODE(path.stat().st_mode) != 0o600}


async def restart(host, profile: str = "restored"):
    async with open_session(host.config) as session:
        return await Restarter(session, await plan_restart(session, profile), timeout_s=90).run()


async def test_links_at_the_units_temporary_names_are_never_written_through(lab_systemd, tmp_path):
    units = lab_systemd.unit_file.parent
    planted = {"tmp": units / f".{UNIT}.mtptui-tmp", "tmp.bak": units / f".{UNIT}.mtptui-tmp.bak"}
    targets = victims(tmp_path, *planted)
    for name, link in planted.items():
        link.symlink_to(targets[name])
    lab_systemd.wait_ready()
    result = await restart(lab_systemd)
    assert result.outcome == "ready", result.summary()
    assert untouched(targets) == {}
    unit = os.lstat(lab_systemd.unit_file)
    assert stat.S_ISREG(unit.st_mode), "the unit became a link"
    backup = lab_systemd.lab.path(result.backup)
    assert stat.S_ISREG(os.lstat(backup).st_mode) and "[Service]" in backup.read_text()
    assert all(link.is_symlink() for link in planted.values())  # the planted names were not used at all
    assert not [p.name for p in units.iterdir() if ".mtptui-" in p.name and p.name not in
                {link.name for link in planted.values()} | {f".{UNIT}.mtptui-lock"}]  # no temporary file left


async def test_a_link_at_the_lock_beside_the_unit_is_refused_and_nothing_changes(lab_systemd, tmp_path):
    targets = victims(tmp_path, "lock")
    (lab_systemd.unit_file.parent / f".{UNIT}.mtptui-lock").symlink_to(targets["lock"])
    original = lab_systemd.unit_file.read_text()
    lab_systemd.wait_ready()
    with pytest.raises(UserError, match=r"refusing the lock file \S+\.mtptui-lock: it is a symbolic link"):
        await restart(lab_systemd)
    assert untouched(targets) == {} and lab_systemd.unit_file.read_text() == original


async def test_a_link_at_the_lock_beside_the_pid_file_is_refused(lab_process, tmp_path):
    targets = victims(tmp_path, "lock")
    (lab_process.lab.srv / ".sglang.pid.mtptui-lock").symlink_to(targets["lock"])
    lab_process.wait_ready()
    with pytest.raises(UserError, match=r"refusing the lock file \S+: it is a symbolic link"):
        await restart(lab_process)
    assert untouched(targets) == {}


async def test_a_link_at_the_pid_file_is_replaced_by_the_new_pid_never_followed(lab_process, tmp_path):
    pid_file = lab_process.lab.srv / "sglang.pid"
    lab_process.wait_ready()
    running = pid_file.read_text()  # the link's target names the server, so the restart finds it by pid file
    targets = victims(tmp_path, "pid", text=running)
    pid_file.unlink()
    pid_file.symlink_to(targets["pid"])
    result = await restart(lab_process)
    assert result.outcome == "ready", result.summary()
    assert untouched(targets, running) == {}
    assert stat.S_ISREG(os.lstat(pid_file).st_mode) and pid_file.read_text().strip() == str(result.pid)
