"""A booted systemd machine for the lab: ``systemd-nspawn --boot`` on an overlay of this machine's root.

    machine = Machine.boot(name, binds=[...], read_only=[...], prepare=write_image)
    machine.run("systemctl", "is-active", "ssh.service")
    machine.shut_down()

Never systemd on this machine's own root: its tmpfiles setup empties the machine's /tmp (see
../shared/reference/real-systemd-lab.md). The container's root is an overlay whose lower layer is ``/`` and
whose upper and work dirs are on a tmpfs of the lab's own, so whatever the container changes, deletes or
cleans lands in that tmpfs and the machine's files stay as they were (tests/test_lab_machine.py checks a
canary in the machine's /tmp). It joins the lab's network namespace (its only network is that namespace's
loopback), runs systemd 252 as PID 1 in a PID namespace of its own, and boots ``mtplab.target`` (journald,
sshd and the lab's units, nothing else of the image).

Everything a machine makes lives under ``/run/mtplab/NAME`` (its tmpfs, its overlay, the nspawn pid and log)
and in a cgroup of its own (``mtplab/NAME`` in each hierarchy systemd tracks processes with): ``shut_down``
stops the container (SIGTERM to nspawn: systemd halts), unmounts both and removes the directory and the cgroup;
``remove_stale`` does the same for the machines of test runs that died before their teardown.

Why a cgroup of its own: with ``--keep-unit`` nspawn puts the container under the cgroup it was started in. On
this machine's legacy hierarchy that is the root for every test process, so two labs booted at once shared one
``/payload`` tree: both systemds ran their ``sglang-qwen.service`` in the same cgroup, and one lab's restart
failed with status 219/CGROUP while the other's stop emptied and removed it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

NSPAWN = "systemd-nspawn"
STATE = Path("/run/mtplab")  # one directory per machine; /run here is on disk, so stale ones are cleaned up
TARGET = "mtplab.target"
BOOT_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0
CGROUP_ROOTS = (Path("/sys/fs/cgroup/systemd"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))
UPPER_SIZE = "2g"  # the container's writes (journal, units, pip caches) live in memory, up to this much


def missing() -> str | None:
    """Why a lab machine cannot boot here, or None."""
    if os.geteuid() != 0:
        return "the lab host needs root (network namespaces, mounts, systemd-nspawn); CI runs as root"
    for tool in ("ip", "nc", "ssh-keygen", "nsenter", "sudo", NSPAWN):
        if shutil.which(tool) is None:
            package = {"nc": "netcat-openbsd", NSPAWN: "systemd-container", "nsenter": "util-linux"}.get(tool, tool)
            return f"the lab host needs {tool} (make test installs {package})"
    if not Path("/lib/systemd/systemd").exists():
        return "the lab host needs systemd itself (/lib/systemd/systemd; make test installs systemd)"
    return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (this machine's PIDs)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _read(entry / "stat")
            if stat and int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _mounts_under(path: Path) -> list[str]:
    """Mount points at or below ``path``, deepest first (as /proc/self/mounts writes them: octal escapes)."""
    prefix = str(path)
    lines = _read(Path("/proc/self/mounts")).splitlines()
    points = [line.split()[1].encode().decode("unicode_escape") for line in lines]
    return sorted({p for p in points if p == prefix or p.startswith(prefix + "/")}, key=len, reverse=True)


def _unmount_all(path: Path) -> None:
    for point in _mounts_under(path):
        if subprocess.run(["umount", point], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", point], capture_output=True)


def _mount(what: str, *args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the lab host cannot boot: mounting {what} failed: {done.stderr.strip()}")


def _cgroups_of(name: str) -> list[Path]:
    """The machine's own cgroup in each hierarchy that tracks processes for systemd: the named ``systemd`` one
    (legacy and hybrid hosts), the unified one (hybrid: ``unified``; unified hosts: the root itself)."""
    roots = [root for root in CGROUP_ROOTS if (root / "cgroup.procs").exists()]
    return [root / "mtplab" / name for root in roots]


def _in_cgroups(paths: list[Path], argv: list[str]) -> list[str]:
    """``argv`` run by a shell that first moves itself into ``paths`` (then execs: nspawn keeps its pid), so nspawn
    builds the container's cgroup tree there."""
    moves = "".join(f'echo $$ > "${i + 1}/cgroup.procs" && ' for i in range(len(paths)))
    return ["sh", "-c", f'{moves}shift {len(paths)} && exec "$@"', "sh", *map(str, paths), *argv]


def _remove_cgroups(paths: list[Path]) -> None:
    """Remove each cgroup tree deepest first (a cgroup with no process left is removed by rmdir)."""
    for path in paths:
        for directory, _, _ in sorted(os.walk(path, topdown=False), key=lambda entry: -len(entry[0])):
            try:
                os.rmdir(directory)
            except OSError:
                pass


def _netns_pids(ns: str) -> set[int]:
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True, check=False).stdout
    return {int(word) for word in out.split()}


def kill_until_gone(victims: Callable[[], set[int]]) -> None:
    """SIGKILL the processes ``victims()`` names (this machine's PIDs) until it names none (2.5 s at most)."""
    for _ in range(50):
        pids = victims()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


def delete_netns(ns: str) -> None:
    """Kill every process in the network namespace ``ns`` by PID (the ProxyCommand's nc), then delete it."""
    kill_until_gone(lambda: _netns_pids(ns))
    subprocess.run(["ip", "netns", "delete", ns], capture_output=True, check=False)


@dataclass
class Machine:
    """One booted lab machine: ``nspawn`` is its systemd-nspawn, ``leader`` its PID 1 (as this machine sees it)."""

    name: str
    netns: str
    nspawn: subprocess.Popen | None = None
    leader: int = 0
    boot_s: float = 0.0  # from spawning nspawn to mtplab.target active
    started: float = 0.0
    binds: list[Path] = field(default_factory=list)

    @property
    def state(self) -> Path:
        return STATE / self.name

    @property
    def rootfs(self) -> Path:
        """The overlay as this machine sees it: writing here is writing on the lab host's disk."""
        return self.state / "root"

    @property
    def console(self) -> Path:
        return self.state / "nspawn.log"

    @classmethod
    def boot(cls, name: str, netns: str, *, binds: Iterable[Path] = (), read_only: Iterable[Path] = (),
             prepare: Callable[[Path], None] = lambda root: None) -> "Machine":
        """Mount the overlay, let ``prepare`` write the image's files into it, boot, wait for ``mtplab.target``."""
        machine = cls(name, netns, binds=[Path(p) for p in binds])
        try:
            machine._mount()
            prepare(machine.rootfs)
            machine._spawn(machine.binds, [Path(p) for p in read_only])
            machine._wait_booted()
        except BaseException:
            machine.shut_down()
            raise
        return machine

    def _mount(self) -> None:
        upper = self.state / "fs"
        for path in (upper, self.rootfs):
            path.mkdir(parents=True, exist_ok=True)
        (self.state / "owner").write_text(str(os.getpid()))
        _mount("a tmpfs for the lab's own writes", "-t", "tmpfs", "-o", f"size={UPPER_SIZE},mode=755", "mtplab",
               str(upper))
        (upper / "upper").mkdir()
        (upper / "work").mkdir()
        options = f"lowerdir=/,upperdir={upper / 'upper'},workdir={upper / 'work'}"
        _mount("the overlay of this machine's root (overlayfs)", "-t", "overlay", "overlay", "-o", options,
               str(self.rootfs))

    def _spawn(self, binds: list[Path], read_only: list[Path]) -> None:
        argv = [NSPAWN, "--quiet", "-D", str(self.rootfs), "--boot", "-M", self.name, "--hostname=gpu-lab",
                "--register=no", "--keep-unit", "--link-journal=no", f"--uuid={uuid.uuid4().hex}",
                f"--network-namespace-path=/run/netns/{self.netns}", "--console=passive",
                *(f"--bind={path}" for path in binds), *(f"--bind-ro={path}" for path in read_only),
                f"systemd.unit={TARGET}"]
        cgroups = _cgroups_of(self.name)
        for path in cgroups:
            path.mkdir(parents=True, exist_ok=True)
        self.started = time.monotonic()
        with open(self.console, "wb") as console:
            self.nspawn = subprocess.Popen(_in_cgroups(cgroups, argv), stdin=subprocess.DEVNULL, stdout=console,
                                           stderr=subprocess.STDOUT, start_new_session=True)
        (self.state / "nspawn.pid").write_text(str(self.nspawn.pid))

    def _wait_booted(self) -> None:
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.nspawn is not None and self.nspawn.poll() is not None:
                raise RuntimeError(f"the lab host cannot boot: systemd-nspawn exited ({self.nspawn.returncode}): "
                                   f"{_read(self.console)[-2000:]}")
            self.leader = self.leader or _leader_of(self.nspawn.pid)
            if self.leader and self.run("systemctl", "is-active", "--quiet", TARGET, timeout=10).returncode == 0:
                self.boot_s = time.monotonic() - self.started
                return
            time.sleep(0.05)
        raise RuntimeError(f"the lab machine {self.name} did not reach {TARGET} in {BOOT_TIMEOUT_S:g} s: "
                           f"{_read(self.console)[-2000:]}")

    def enter(self) -> list[str]:
        """The prefix that runs a command inside the machine (its mounts, PID namespace, network, hostname)."""
        return ["nsenter", "-t", str(self.leader), "-m", "-u", "-i", "-n", "-p", "--"]

    def run(self, *argv: str, env: dict[str, str] | None = None, input: str | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([*self.enter(), *argv], capture_output=True, text=True, env=env, input=input,
                              timeout=timeout)

    # The machine's processes ------------------------------------------------------------------------------

    def processes(self) -> dict[int, int]:
        """Every process of the machine: its PID inside the machine -> its PID on this one."""
        try:
            ns = os.readlink(f"/proc/{self.leader}/ns/pid")
        except OSError:
            return {}
        found = {}
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and os.readlink(entry / "ns" / "pid") == ns:
                    inner = next(line.split()[-1] for line in (entry / "status").read_text().splitlines()
                                 if line.startswith("NSpid:"))
                    found[int(inner)] = int(entry.name)
            except (OSError, StopIteration):
                continue
        return found

    def outer_pid(self, pid: int) -> int | None:
        """This machine's PID of the machine's process ``pid``."""
        return self.processes().get(pid)

    # Teardown ---------------------------------------------------------------------------------------------

    def shut_down(self) -> float:
        """Stop the container (systemd halts on SIGTERM to nspawn), unmount, remove its directory; seconds taken."""
        started = time.monotonic()
        if self.nspawn is not None:
            _stop_nspawn(self.nspawn.pid, self.leader, wait=self.nspawn.wait)
        _unmount_all(self.state)
        shutil.rmtree(self.state, ignore_errors=True)
        shutil.rmtree(Path("/run/systemd/nspawn/propagate") / self.name, ignore_errors=True)
        _remove_cgroups(_cgroups_of(self.name))
        return time.monotonic() - started


def _stop_nspawn(pid: int, leader: int, wait: Callable[[float], object] | None = None) -> None:
    """SIGTERM, then SIGKILL to nspawn and the container's PID 1 (whose end kills its whole PID namespace)."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while alive(pid) and time.monotonic() < deadline:
        if wait is not None:
            try:
                wait(0.1)
            except subprocess.TimeoutExpired:
                pass
        else:
            time.sleep(0.1)
    for victim in (leader, pid):
        if victim and alive(victim):
            os.kill(victim, signal.SIGKILL)
    if wait is not None:
        wait(STOP_TIMEOUT_S)


def _runs_machine(pid: int, name: str) -> bool:
    """Whether ``pid`` is still the systemd-nspawn of machine ``name`` (and not a reused pid)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return bool(argv) and argv[0].endswith(NSPAWN.encode()) and name.encode() in argv


def _leader_of(nspawn: int) -> int:
    """The container's PID 1: the ``systemd`` child of its systemd-nspawn (0 while there is none)."""
    return next((p for p in children(nspawn) if _read(Path(f"/proc/{p}/comm")).strip() == "systemd"), 0)


def remove_stale(prefix: str) -> list[str]:
    """Machines named ``PREFIX<pid>-N`` whose test run (``pid``) is gone: stopped, unmounted, removed."""
    removed = []
    for state in sorted(STATE.glob(f"{prefix}*")) if STATE.is_dir() else []:
        owner = state.name[len(prefix):].split("-")[0]
        if not owner.isdigit() or alive(int(owner)):
            continue
        nspawn = _read(state / "nspawn.pid").strip()
        if nspawn.isdigit() and _runs_machine(int(nspawn), state.name):
            _stop_nspawn(int(nspawn), _leader_of(int(nspawn)))
        _unmount_all(state)
        shutil.rmtree(state, ignore_errors=True)
        _remove_cgroups(_cgroups_of(state.name))
        removed.append(state.name)
    return removed
