"""The lab host: a GPU host running systemd 252, reachable only over SSH, in a network namespace of its own.

Its fixtures (``lab``, ``lab_each``, ``lab_systemd``, ``lab_process``, ``lab_process_each``) reach every test module
through ``pytest_plugins`` in tests/conftest.py: take them as arguments, import only the helpers.

``Lab`` creates the network namespace ``mtplab-PID-N``, whose only interface is its own loopback, and boots a
real systemd machine in it (tests/lab/machine.py: ``systemd-nspawn --boot`` on an overlay of this machine's
root, never systemd on the root itself). Its PID 1 is systemd, its journal is journald, and Debian's
``ssh.service`` runs a real OpenSSH sshd on the namespace's 127.0.0.1:22. The server is the stand-in ``sglang``
package (the simulated server, launched like SGLang: ``python -m sglang.launch_server ...``), started by the
real unit ``/etc/systemd/system/sglang-qwen.service`` or by hand with nohup, on the namespace's 127.0.0.1:30000,
where nothing on the operator's side can reach it except through the SSH connection. The container has a PID
namespace of its own: a process-managed lab host finds only its own server by command line.

The operator side is a private HOME (set as $HOME by the fixtures) whose ``~/.ssh/config`` names the alias
``gpu-lab``: ``HostName gpu.lab`` (a name no resolver knows), ``User``, ``IdentityFile``, ``UserKnownHostsFile``
and ``ProxyCommand ip netns exec NS nc 127.0.0.1 22``, the way operators reach hosts behind a bastion; and
``gpu-lab-ops``, the same host as the non-root account ``mtpops`` (``Lab.sudoers`` writes its sudo rule). The
host file says only ``target = "gpu-lab"``: everything else comes from ssh_config.

What the container shares with this machine: the pytest tmp dir the lab lives in (read-write, same path, so
the host's models, logs and pid files are files a test reads directly), the checkout, the venv and the test
cache (read-only). ``Lab.path`` says where a file of the host's own disk is seen from here.

The host's SGLang is ``Lab.version`` (the stand-in reads $MTPTUI_SIM_RELEASE): 0.5.12.post1, the mission's, for
``lab``; ``lab_each`` runs a module's tests once per supported version, and its host files say that version.

Setup and teardown are idempotent: a lab left by a test run that died (its machine, mounts and namespace) is
removed at the next start; ``stop`` shuts the machine down, unmounts it and deletes the namespace. Needs root,
iproute2, netcat, util-linux and systemd-container (``make test`` installs them).
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from tests.needs import need
from tests.lab.hosts import (ALIAS, API_PORT, HOSTNAME, OPERATOR_ALIAS, UNIT, LabHost, lab_host_file, operator_env,
                             ssh_config, start_server)
from tests.lab.image import OPERATOR, SUDOERS, Image
from tests.lab.machine import Machine, alive, delete_netns, kill_until_gone, missing, remove_stale
from tests.lab.sshd import LabSSHD
from tests.sglang_standins.venv import cache_root
from tests.sshd import DEMO_SGLANG, MODEL, NETGUARD, PROFILES, ROOT, SYSTEM_PATH, keygen

NS_PREFIX = "mtplab-"
_numbers = itertools.count(1)
# Services of the image that run on a lab host whatever a test does (``reset`` leaves them alone).
BASE_SERVICES = ("systemd-journald.service", "ssh.service")
# What the tests put on the host's disk: the unit, its drop-ins and backups, mtptui's lock, enable links,
# other units a test writes (``sglang-*``, ``mtptest-*``) and the operator's sudo rule. ``reset`` removes them.
TEST_FILES = ("/etc/systemd/system/sglang-*", "/etc/systemd/system/.sglang-*", "/etc/systemd/system/mtptest-*",
              "/etc/systemd/system/*.wants/sglang-*", "/etc/systemd/system/*.wants/mtptest-*", SUDOERS,
              "/run/systemd/system/sglang-*", "/home/mtpops/units")


def lab_missing() -> str | None:
    """Why the lab cannot run here, or None."""
    return missing()


def namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def delete_stale_labs() -> list[str]:
    """Machines and namespaces of earlier test runs whose process is gone (a run killed before its teardown)."""
    removed = remove_stale(NS_PREFIX)
    for ns in namespaces():
        owner = ns[len(NS_PREFIX):].split("-")[0] if ns.startswith(NS_PREFIX) else ""
        if owner.isdigit() and not alive(int(owner)):
            delete_netns(ns)
            removed.append(ns)
    return removed


def quick_acks(ns: str, on: bool = True) -> None:
    """Immediate ACKs on the namespace's loopback (the route's ``quickack``), for sshd and the ProxyCommand alike.

    Neither OpenSSH's sshd (for a session without a terminal) nor the ProxyCommand's nc sets TCP_NODELAY, so on a
    loopback, where nothing else delays a segment, one's Nagle waits out the other's delayed ACK: 40 ms, twice per
    SSH command (channel open, then exec), which made every round trip about 45 ms instead of 10-20 ms (the
    ``round_trip_ms`` of benchmarks/lab_restart.py, with and without ``--delayed-acks``). An operator's host may
    stall the same way (asyncssh sets TCP_NODELAY on mtptui's end of a direct connection; sshd sets none on its
    own); the lab times mtptui, not that.
    """
    for route in ("127.0.0.0/8", "127.0.0.1"):  # a kernel without these routes only keeps the stall: no check
        subprocess.run(["ip", "-n", ns, "route", "change", "local", route, "dev", "lo", "table", "local", "proto",
                        "kernel", "scope", "host", "src", "127.0.0.1", "quickack", "1" if on else "0"],
                       capture_output=True, check=False)


def _read_only_binds() -> list[Path]:
    """The checkout, the venv (when it lives elsewhere) and the test cache (the SGLang venvs host lint runs)."""
    cache = cache_root()
    cache.mkdir(parents=True, exist_ok=True)
    paths = [ROOT, Path(sys.prefix).resolve(), cache.resolve()]
    return [p for i, p in enumerate(paths) if not any(p == q or q in p.parents for q in paths[:i])]


@dataclass
class Lab:
    """One lab host: a systemd machine in a network namespace, sshd on its 127.0.0.1:22, the operator's HOME.

    ``shared`` are this machine's directories the host sees read-write at the same path (``root`` by default;
    the fixtures share pytest's whole tmp dir, where tests keep what they give the host).
    """

    root: Path
    speed: str = "200"
    version: str = "0.5.12.post1"
    ns: str = ""
    machine: Machine | None = None
    sshd: LabSSHD | None = None
    shared: tuple[Path, ...] = ()
    teardown_s: float = 0.0
    _base: set[int] = field(default_factory=set)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def state(self) -> Path:
        """Where the simulated server's GPU state lives (the stand-in nvidia-smi reads it)."""
        return self.root / "host"

    @property
    def srv(self) -> Path:
        """Where a process-managed (nohup) server keeps its log and pid file on the host."""
        return self.root / "srv"

    @property
    def bin(self) -> Path:
        """Programs installed on the host for one test (``install``): first on its PATH, emptied by ``reset``."""
        return self.root / "host-bin"

    @property
    def models(self) -> Path:
        """Where model directories live on the host (a directory it shares with this machine)."""
        return self.root / "models"

    @property
    def host_home(self) -> Path:
        """The HOME of root's SSH sessions on the host (a shared directory, so a test sees what lands there)."""
        return self.root / "host-home"

    @property
    def known_hosts(self) -> Path:
        return self.home / ".ssh" / "known_hosts_lab"

    @property
    def identity(self) -> Path:
        return self.home / ".ssh" / "id_lab"

    @property
    def boot_s(self) -> float:
        return self.machine.boot_s if self.machine else 0.0

    def session_env(self) -> dict[str, str]:
        """The environment of an SSH session on the host (sshd's SetEnv), which ``run`` gives its commands too."""
        return {"PATH": f"{self.bin}:{SYSTEM_PATH}", "PYTHONPATH": f"{DEMO_SGLANG}:{NETGUARD}:{ROOT}",
                "MTPTUI_SIM_GPU_STATE": str(self.state / "gpu.json"), "MTPTUI_STANDIN_PYTHON": sys.executable,
                "LC_ALL": "C.UTF-8", "MTPTUI_SIM_SPEED": self.speed, "MTPTUI_SIM_RELEASE": self.version,
                "HOME": str(self.host_home)}

    def unit_env(self) -> dict[str, str]:
        """What every unit sees (DefaultEnvironment=): the stand-in sglang package and the simulated GPUs."""
        env = self.session_env()
        return {k: env[k] for k in ("PYTHONPATH", "MTPTUI_SIM_GPU_STATE", "MTPTUI_SIM_SPEED", "MTPTUI_SIM_RELEASE",
                                    "LC_ALL")}

    def start(self) -> "Lab":
        delete_stale_labs()
        self.ns = f"{NS_PREFIX}{os.getpid()}-{next(_numbers)}"
        delete_netns(self.ns)
        subprocess.run(["ip", "netns", "add", self.ns], check=True)
        subprocess.run(["ip", "-n", self.ns, "link", "set", "lo", "up"], check=True)
        quick_acks(self.ns)
        for path in (self.state, self.srv, self.bin, self.models, self.host_home, self.home / ".ssh",
                     self.root / "keys"):
            path.mkdir(parents=True, exist_ok=True)
        image = self._image()
        self._searchable()
        try:
            self.machine = Machine.boot(self.ns, self.ns, binds=self.shared or (self.root,),
                                        read_only=_read_only_binds(), prepare=image.write)
        except BaseException:
            delete_netns(self.ns)
            raise
        self.sshd = LabSSHD(self.machine)
        self._base = self._base_pids()
        self._operator_home()
        return self

    def _image(self) -> Image:
        keys = self.root / "keys"
        keygen(keys / "host_key")
        client_pub = keygen(keys / "client_key")
        return Image(os.urandom(16).hex(), keys / "host_key", client_pub, self.session_env(), self.unit_env(),
                     reachable=[Path(sys.executable), *_read_only_binds(), self.root])

    def _searchable(self) -> None:
        """The lab's directories searchable by the host's operator account: pytest makes its tmp dirs 0700, and
        the shared ones are this machine's own (their parents above are opened in the overlay only)."""
        for shared in self.shared or (self.root,):
            for directory in (self.root, *self.root.parents):
                if directory == shared or shared in directory.parents:
                    directory.chmod(directory.stat().st_mode & 0o7777 | 0o001)

    def _operator_home(self) -> None:
        ssh = self.home / ".ssh"
        ssh.chmod(0o700)
        shutil.copy(self.root / "keys" / "client_key", self.identity)
        self.identity.chmod(0o600)
        host_pub = (self.root / "keys" / "host_key.pub").read_text().split()[:2]
        self.known_hosts.write_text(f"{HOSTNAME} {' '.join(host_pub)}\n")
        (ssh / "config").write_text(ssh_config(self.ns, self.identity, self.known_hosts))

    def stop(self) -> None:
        started = time.monotonic()
        if self.machine is not None:
            self.machine.shut_down()
        if self.ns:
            delete_netns(self.ns)
        self.teardown_s = time.monotonic() - started

    # The host side ----------------------------------------------------------------------------------------

    def path(self, inside: str | Path) -> Path:
        """Where the host's file ``inside`` is seen from this machine: itself in a shared directory, else in the
        machine's overlay."""
        inside = Path(inside)
        if any(inside == p or p in inside.parents for p in (*(self.shared or (self.root,)), *_read_only_binds())):
            return inside
        return self.machine.rootfs / inside.relative_to("/")

    def pids(self) -> set[int]:
        """Every process the host runs (its own PIDs: the container has a PID namespace of its own)."""
        return set(self.machine.processes())

    def env(self) -> dict[str, str]:
        return self.session_env()

    def argv(self, pid: int) -> list[str]:
        """The command line of the host's process ``pid`` (its own PID), [] when it does not run."""
        outer = self.machine.outer_pid(pid)
        try:
            data = Path(f"/proc/{outer}/cmdline").read_bytes() if outer else b""
        except OSError:
            return []
        return data.decode(errors="surrogateescape").split("\0")[:-1]

    def install(self, program: Path) -> None:
        """Put ``program`` on the host's PATH (a link in ``bin``) until the next ``reset``."""
        (self.bin / program.name).symlink_to(program)

    def run(self, *argv: str, timeout: float = 60, input: str | None = None) -> subprocess.CompletedProcess:
        """Run a command on the lab host as root's SSH sessions would (its PATH and environment), without SSH."""
        return self.machine.run(*argv, env=self.session_env(), input=input, timeout=timeout)

    def systemctl(self, *args: str) -> str:
        """``systemctl ARGS`` on the host, the system's own (not one a test put on the PATH); its output (an
        AssertionError when it fails)."""
        result = self.machine.run("systemctl", *args)
        assert result.returncode == 0, f"systemctl {' '.join(args)}: {result.stderr}"
        return result.stdout

    def sudoers(self, rule: str | None) -> None:
        """The non-root operator's sudo rule (one sudoers line), or none."""
        path = self.path(SUDOERS)
        if rule is None:
            path.unlink(missing_ok=True)
            return
        path.write_text(rule.rstrip("\n") + "\n")
        path.chmod(0o440)
        checked = self.machine.run("visudo", "-c", "-q", "-f", SUDOERS)
        assert checked.returncode == 0, checked.stdout + checked.stderr

    def _base_pids(self) -> set[int]:
        """PID 1 and the main processes of the base services (what ``reset`` keeps)."""
        shown = self.machine.run("systemctl", "show", "-p", "MainPID", "--value", *BASE_SERVICES).stdout.split()
        return {1, *(int(pid) for pid in shown if pid.isdigit() and int(pid) > 0)}

    def reset(self) -> None:
        """Back to the freshly booted host: the tests' units stopped and removed, every process but systemd,
        journald and sshd's listener killed, the journal emptied, the state, srv and bin directories emptied."""
        self.machine.run("systemctl", "stop", "sglang-*", "mtptest-*")  # the system's (not a test's on the PATH)
        self._kill_all_but_base()
        self.machine.run("sh", "-c", 'rm -rf -- $1; systemctl daemon-reload; systemctl reset-failed; '
                             'journalctl --rotate -q; journalctl --vacuum-time=1us -q', "sh", " ".join(TEST_FILES))
        for path in (self.state, self.srv, self.bin):
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir(parents=True)

    def _kill_all_but_base(self) -> None:
        self._base = self._base_pids()
        kill_until_gone(lambda: {outer for inner, outer in self.machine.processes().items() if inner not in self._base})

    def start_users(self) -> subprocess.Popen:
        """The server's users, beside the host (in its network namespace): one chat request after another (so
        the log shows decoding)."""
        return subprocess.Popen(["ip", "netns", "exec", self.ns, sys.executable, "-c", USERS,
                                 f"http://127.0.0.1:{API_PORT}"], env={**os.environ, **self.session_env()},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def api(self, path: str, port: int = API_PORT) -> tuple[int, str]:
        """GET ``path`` from the server as the host itself sees it (its 127.0.0.1:30000, or ``port``)."""
        code = ("import sys, urllib.request, urllib.error\n"
                "try:\n r = urllib.request.urlopen(sys.argv[1], timeout=10)\n"
                " print(r.status); print(r.read().decode())\n"
                "except urllib.error.HTTPError as e:\n print(e.code); print(e.read().decode())\n"
                "except OSError as e:\n print(0); print(e)\n")
        out = self.run(sys.executable, "-c", code, f"http://127.0.0.1:{port}{path}").stdout
        status, _, body = out.partition("\n")
        return int(status or 0), body


USERS = """
import json, sys, time, urllib.request
body = json.dumps({"model": "default", "max_tokens": 96, "temperature": 0,
                   "messages": [{"role": "user", "content": "Write a red-black tree in Python."}]}).encode()
while True:
    try:
        request = urllib.request.Request(sys.argv[1] + "/v1/chat/completions", body,
                                         {"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=120).read()
    except OSError:
        time.sleep(0.5)
    time.sleep(0.2)
"""


def _lab(tmp_path_factory: pytest.TempPathFactory, version: str = "0.5.12.post1") -> Iterator[Lab]:
    need(lab_missing())
    lab = Lab(tmp_path_factory.mktemp("lab"), version=version, shared=(tmp_path_factory.getbasetemp(),))
    try:
        yield lab.start()
    finally:
        lab.stop()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A lab host for the tests of one module (SGLang 0.5.12.post1, the mission's)."""
    yield from _lab(tmp_path_factory)


@pytest.fixture(scope="module", params=["0.5.12.post1", "0.5.23"])
def lab_each(request, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A lab host per supported SGLang version (``lab_each.version``), for the tests of one module."""
    yield from _lab(tmp_path_factory, request.param)


def prepare_lab_host(lab: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, manager: str,
                     model: str = MODEL) -> LabHost:
    """A fresh lab host for ``manager`` running the bad redeploy (what the fixtures below give); HOME is the
    operator's. ``model`` (default: a path the lab host does not have) is every profile's model path."""
    lab.reset()
    monkeypatch.setenv("HOME", str(lab.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    host = lab_host_file(lab, tmp_path / "lab.toml", manager, model)
    start_server(host, "redeploy-1step")
    return host


@pytest.fixture
def lab_systemd(lab: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabHost]:
    """The lab host managed by systemd, running the bad redeploy from its unit; HOME is the operator's."""
    host = prepare_lab_host(lab, tmp_path, monkeypatch, "systemd")
    yield host
    lab.reset()


@pytest.fixture
def lab_process_each(lab_each: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabHost]:
    """``lab_process`` on each supported SGLang version."""
    host = prepare_lab_host(lab_each, tmp_path, monkeypatch, "process")
    yield host
    lab_each.reset()


@pytest.fixture
def lab_process(lab: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabHost]:
    """The lab host with the bad redeploy started by hand (nohup, pid and log files); HOME is the operator's."""
    host = prepare_lab_host(lab, tmp_path, monkeypatch, "process")
    yield host
    lab.reset()


__all__ = ["ALIAS", "API_PORT", "HOSTNAME", "OPERATOR", "OPERATOR_ALIAS", "Lab", "LabHost", "PROFILES", "UNIT", "lab",
           "lab_each", "lab_host_file", "lab_missing", "lab_process", "lab_process_each", "lab_systemd",
           "operator_env", "prepare_lab_host", "quick_acks", "start_server"]
