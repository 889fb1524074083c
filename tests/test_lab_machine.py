"""The lab machine itself: real systemd 252 as PID 1 in a container, and this machine untouched by it.

Booting systemd on this machine's own root once emptied the machine's /tmp (its tmpfiles setup applies
``D /tmp``): the canary test puts a file in this machine's /tmp, boots a lab, runs a unit that pulls in
sysinit.target, tears the lab down, and fails if the canary is gone. Teardown leaves nothing behind (no
container process, no mount, no namespace, no state directory), and a lab whose test run was killed is removed
by the next lab's start.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.needs import need
from tests.lab import Lab, lab_missing
from tests.lab.machine import STATE, _cgroups_of, _mounts_under
from tests.sshd import ROOT

pytestmark = pytest.mark.ssh
MACHINE_TMP = Path("/tmp")  # this machine's own /tmp, whatever TMPDIR says: what systemd's tmpfiles would empty


@pytest.fixture
def canary():
    need(lab_missing())
    path = MACHINE_TMP / f"mtptui-lab-canary-{os.getpid()}-{uuid.uuid4().hex}"
    path.write_text("this machine's /tmp must survive a lab\n")
    yield path
    path.unlink(missing_ok=True)


def leftovers(lab: Lab, nspawn_pid: int, leader: int) -> list[str]:
    """What of ``lab`` is still there after its teardown."""
    found = []
    if lab.ns in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split():
        found.append(f"network namespace {lab.ns}")
    if (STATE / lab.ns).exists():
        found.append(f"state directory {STATE / lab.ns}")
    found += [f"mount {point}" for point in _mounts_under(STATE / lab.ns)]
    found += [f"pid {pid}" for pid in (nspawn_pid, leader) if Path(f"/proc/{pid}").exists()]
    found += [f"cgroup {path}" for path in _cgroups_of(lab.ns) if path.exists()]
    return found


def tracking_cgroup(pid: int) -> str:
    """The cgroup systemd tracks ``pid`` by (the named ``systemd`` hierarchy, or the unified one)."""
    lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    named = [line for line in lines if ":name=systemd:" in line] or [line for line in lines if line.startswith("0::")]
    return named[0].split(":", 2)[2]


def test_the_lab_boots_systemd_252_with_journald_and_sshd_and_leaves_this_machine_as_it_was(canary, tmp_path):
    lab = Lab(tmp_path / "lab", shared=(tmp_path,))
    try:
        lab.start()
        version = lab.run("systemctl", "--version").stdout.splitlines()[0]
        units = {unit: lab.run("systemctl", "is-active", unit).stdout.strip()
                 for unit in ("systemd-journald.service", "ssh.service", "sysinit.target", "mtplab.target")}
        running = {line.split()[0] for line in lab.run("systemctl", "list-units", "--type=service", "--state=running",
                                                       "--no-legend", "--plain").stdout.splitlines() if line.strip()}
        comm = lab.run("cat", "/proc/1/comm").stdout.strip()
        unit = lab.path("/etc/systemd/system/mtptest-tmp.service")  # default dependencies: sysinit.target
        unit.write_text(f"[Service]\nType=oneshot\nExecStart=/bin/sh -c 'ls -A /tmp > {tmp_path}/seen'\n")
        lab.systemctl("daemon-reload")
        lab.systemctl("start", "mtptest-tmp.service")
        seen = (tmp_path / "seen").read_text().split()
        nspawn, leader = lab.machine.nspawn.pid, lab.machine.leader
    finally:
        lab.stop()
    assert version.startswith("systemd 252 ") and comm == "systemd"
    assert units == {"systemd-journald.service": "active", "ssh.service": "active", "sysinit.target": "active",
                     "mtplab.target": "active"}
    assert running == {"systemd-journald.service", "ssh.service"}  # nothing else of the image (its postgresql...)
    assert canary.name not in seen  # the container's /tmp is its own
    assert canary.exists(), "the lab emptied this machine's /tmp"
    assert leftovers(lab, nspawn, leader) == []


def test_a_lab_left_by_a_killed_test_run_is_removed_when_the_next_lab_starts(tmp_path):
    need(lab_missing())
    code = ("import sys, time; from pathlib import Path; from tests.lab import Lab\n"
            "lab = Lab(Path(sys.argv[1]), shared=(Path(sys.argv[1]),)).start()\n"
            "print(lab.ns, lab.machine.nspawn.pid, lab.machine.leader, flush=True); time.sleep(600)\n")
    run = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "killed")], cwd=ROOT, stdout=subprocess.PIPE,
                           text=True)
    ns, nspawn, leader = run.stdout.readline().split()
    os.kill(run.pid, signal.SIGKILL)  # the run dies before its teardown: its machine keeps running
    run.wait()
    stale = Lab(tmp_path / "killed", shared=(tmp_path,))
    stale.ns = ns
    assert Path(f"/proc/{nspawn}").exists() and (STATE / ns).exists() and _mounts_under(STATE / ns)
    fresh = Lab(tmp_path / "next", shared=(tmp_path,))
    try:
        fresh.start()
        ready = fresh.run("systemctl", "is-active", "mtplab.target").stdout.strip()
    finally:
        fresh.stop()
    deadline = time.monotonic() + 10
    while leftovers(stale, int(nspawn), int(leader)) and time.monotonic() < deadline:
        time.sleep(0.1)  # the killed machine's processes are reaped by init once their nspawn has gone
    assert ready == "active" and leftovers(stale, int(nspawn), int(leader)) == []


TWIN = "mtptest-twin.service"


def test_two_labs_at_once_keep_their_units_cgroups_apart(tmp_path):
    """Both labs' systemds run a unit of the same name (as every lab runs sglang-qwen.service). When both
    containers sat in one cgroup tree, one lab's restart of it failed with 219/CGROUP now and then: the other
    lab's stop had emptied and removed the cgroup they shared."""
    need(lab_missing())
    labs = [Lab(tmp_path / name, shared=(tmp_path,)) for name in ("one", "two")]
    try:
        for lab in labs:
            lab.start()
            lab.path(f"/etc/systemd/system/{TWIN}").write_text("[Service]\nExecStart=/bin/sleep infinity\n")
            lab.systemctl("daemon-reload")
            lab.systemctl("start", TWIN)
        roots = [tracking_cgroup(lab.machine.leader) for lab in labs]
        twins = [tracking_cgroup(lab.machine.outer_pid(int(lab.run("systemctl", "show", "-P", "MainPID", TWIN).stdout)))
                 for lab in labs]
        labs[0].systemctl("stop", TWIN)
        still = labs[1].run("systemctl", "is-active", TWIN).stdout.strip()
        labs[0].systemctl("start", TWIN)
        again = labs[0].run("systemctl", "is-active", TWIN).stdout.strip()
    finally:
        for lab in labs:
            lab.stop()
    assert [root.startswith(f"/mtplab/{lab.ns}/") for root, lab in zip(roots, labs)] == [True, True], roots
    assert twins[0] != twins[1] and all(twin.endswith(f"/system.slice/{TWIN}") for twin in twins), twins
    assert (still, again) == ("active", "active")


def test_the_lab_has_a_process_table_of_its_own(lab):
    """A process-managed lab host finds its server by command line: it sees its own processes, not this
    machine's (this test runs pytest here; the host has no such process)."""
    here = subprocess.run(["pgrep", "-f", "pytest"], capture_output=True, text=True).stdout.split()
    there = lab.run("pgrep", "-f", "pytest")
    assert here  # pytest runs on this machine
    assert there.returncode == 1 and there.stdout == ""
    assert lab.argv(1)[0].endswith("systemd") and 1 in lab.pids()
