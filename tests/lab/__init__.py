"""The lab host: a GPU host that is reachable only over SSH, in a network namespace of its own.

    from tests.lab import lab, lab_systemd, lab_process  # noqa: F401  (fixtures)

``Lab`` creates the network namespace ``mtplab-PID-N``, whose only interface is its own loopback, and starts a real
OpenSSH sshd on the namespace's 127.0.0.1:22. The host side is the stand-in GPU host of ``tests.sshd``: its
sessions see the stand-in ``systemctl``/``journalctl`` and the stand-in ``sglang`` package, so the simulated
server is launched like SGLang (``python -m sglang.launch_server ...``) and listens on the namespace's
127.0.0.1:30000, where nothing on the operator's side can reach it except through the SSH connection.

The operator side is a private HOME (set as $HOME by the fixtures) whose ``~/.ssh/config`` names the alias
``gpu-lab``: ``HostName gpu.lab`` (a name no resolver knows), ``User``, ``IdentityFile``, ``UserKnownHostsFile``
and ``ProxyCommand ip netns exec NS nc 127.0.0.1 22``, the way operators reach hosts behind a bastion. The host
file says only ``target = "gpu-lab"``: everything else comes from ssh_config.

The host's SGLang is ``Lab.version`` (the stand-in reads $MTPTUI_SIM_RELEASE): 0.5.12.post1, the mission's, for
``lab``; ``lab_each`` runs a module's tests once per supported version, and its host files say that version.

Setup and teardown are idempotent: a namespace left by a test run that died is deleted at the next start, and
``stop`` kills every process in the namespace by PID before deleting it. Needs root, iproute2 and netcat.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from tests.sshd import MODEL, PROFILES, SSHD, UNIT_TEMPLATE, host_env, host_toml

ALIAS = "gpu-lab"
HOSTNAME = "gpu.lab"
API_PORT = 30000
UNIT = "sglang-qwen.service"
NS_PREFIX = "mtplab-"
_numbers = itertools.count(1)


def lab_missing() -> str | None:
    """Why the lab cannot run here, or None."""
    if os.geteuid() != 0:
        return "the lab host needs root (network namespaces); CI runs as root"
    for tool in ("ip", "nc", "ssh-keygen"):
        if shutil.which(tool) is None:
            return f"the lab host needs {tool} (make test installs it)"
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def namespace_pids(ns: str) -> set[int]:
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True, check=False).stdout
    return {int(word) for word in out.split()}


def delete_namespace(ns: str) -> None:
    """Kill every process in ``ns`` by PID, then delete it (nothing of it outlives this call)."""
    for _ in range(50):
        pids = namespace_pids(ns)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    subprocess.run(["ip", "netns", "delete", ns], capture_output=True, check=False)


def delete_stale_namespaces() -> None:
    """Namespaces of earlier test runs whose process is gone (a run killed before its teardown)."""
    for ns in namespaces():
        if ns.startswith(NS_PREFIX):
            owner = ns[len(NS_PREFIX):].split("-")[0]
            if owner.isdigit() and not _alive(int(owner)):
                delete_namespace(ns)


@dataclass
class Lab:
    """One lab host: a network namespace with sshd on its 127.0.0.1:22, and the operator's private HOME."""

    root: Path
    speed: str = "200"
    version: str = "0.5.12.post1"
    ns: str = ""
    sshd: SSHD | None = None

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def state(self) -> Path:
        """The stand-in systemd's state on the host (units, journal)."""
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
        """Where model directories live on the host (the lab's own filesystem is this machine's)."""
        return self.root / "models"

    @property
    def known_hosts(self) -> Path:
        return self.home / ".ssh" / "known_hosts_lab"

    @property
    def identity(self) -> Path:
        return self.home / ".ssh" / "id_lab"

    def start(self) -> "Lab":
        delete_stale_namespaces()
        self.ns = f"{NS_PREFIX}{os.getpid()}-{next(_numbers)}"
        delete_namespace(self.ns)
        subprocess.run(["ip", "netns", "add", self.ns], check=True)
        subprocess.run(["ip", "-n", self.ns, "link", "set", "lo", "up"], check=True)
        for path in (self.state, self.srv, self.bin, self.home / ".ssh"):
            path.mkdir(parents=True, exist_ok=True)
        env = host_env(self.state)
        env.update(PATH=f"{self.bin}:{env['PATH']}", MTPTUI_SIM_SPEED=self.speed, MTPTUI_SIM_RELEASE=self.version,
                   HOME=str(self.root / "host-home"))
        self.sshd = SSHD(self.root / "sshd", env=env, port=22, netns=self.ns, known_as=HOSTNAME)
        self.sshd.start()
        self._operator_home()
        return self

    def _operator_home(self) -> None:
        ssh = self.home / ".ssh"
        ssh.chmod(0o700)
        shutil.copy(self.sshd.client_key, self.identity)
        self.identity.chmod(0o600)
        shutil.copy(self.sshd.known_hosts, self.known_hosts)
        (ssh / "config").write_text(ssh_config(self.ns, self.identity, self.known_hosts))

    def stop(self) -> None:
        if self.ns:
            delete_namespace(self.ns)
        if self.sshd is not None and self.sshd.process is not None:
            self.sshd.process.wait(timeout=10)

    # The host side ----------------------------------------------------------------------------------------

    def pids(self) -> set[int]:
        """Every process the host runs: those in the lab's network namespace but the operator's ProxyCommand
        (``nc``, which ``ip netns exec`` starts in the namespace on the operator's behalf)."""
        return {pid for pid in namespace_pids(self.ns) if _comm(pid) != "nc"}

    def env(self) -> dict[str, str]:
        return {**os.environ, **self.sshd.env}

    def install(self, program: Path) -> None:
        """Put ``program`` on the host's PATH (a link in ``bin``) until the next ``reset``."""
        (self.bin / program.name).symlink_to(program)

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """Run a command on the lab host as its SSH sessions would (its network, PATH and environment)."""
        return subprocess.run(["ip", "netns", "exec", self.ns, *argv], capture_output=True, text=True,
                              env=self.env(), timeout=timeout)

    def reset(self) -> None:
        """Kill everything on the host but sshd's listener, and forget the stand-in systemd's state."""
        keep = {self.sshd.process.pid}
        for _ in range(50):
            victims = self.pids() - keep
            if not victims:
                break
            for pid in victims:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        for path in (self.state, self.srv, self.bin):
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir(parents=True)

    def start_users(self) -> subprocess.Popen:
        """The server's users, on the host's side: one chat request after another (so the log shows decoding)."""
        return subprocess.Popen(["ip", "netns", "exec", self.ns, sys.executable, "-c", USERS,
                                 f"http://127.0.0.1:{API_PORT}"], env=self.env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)

    def api(self, path: str) -> tuple[int, str]:
        """GET ``path`` from the server as the host itself sees it (its 127.0.0.1:30000)."""
        code = ("import sys, urllib.request, urllib.error\n"
                "try:\n r = urllib.request.urlopen(sys.argv[1], timeout=10)\n"
                " print(r.status); print(r.read().decode())\n"
                "except urllib.error.HTTPError as e:\n print(e.code); print(e.read().decode())\n"
                "except OSError as e:\n print(0); print(e)\n")
        out = self.run(sys.executable, "-c", code, f"http://127.0.0.1:{API_PORT}{path}").stdout
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


def ssh_config(ns: str, identity: Path, known_hosts: Path) -> str:
    """The operator's ~/.ssh/config: the lab behind a ProxyCommand, and the same host through a ProxyJump."""
    return (f"Host {ALIAS}\n"
            f"    HostName {HOSTNAME}\n"
            f"    User root\n"
            f"    Port 22\n"
            f"    IdentityFile {identity}\n"
            f"    UserKnownHostsFile {known_hosts}\n"
            f"    ProxyCommand ip netns exec {ns} nc 127.0.0.1 %p\n"
            f"\n"
            f"Host {ALIAS}-jump\n"
            f"    HostName 127.0.0.1\n"
            f"    User root\n"
            f"    IdentityFile {identity}\n"
            f"    UserKnownHostsFile {known_hosts}\n"
            f"    ProxyJump {ALIAS}\n")


@dataclass
class LabHost:
    """A host file for the lab host, with its server started in the mission's bad state."""

    lab: Lab
    path: Path
    manager: str

    @property
    def config(self):
        from mtptui.config.loader import load_host_file

        return load_host_file(self.path)

    @property
    def log(self) -> Path:
        """The server's log as the host keeps it (the journal's backing file under the stand-in systemd)."""
        if self.manager == "systemd":
            return self.lab.state / "systemd" / "journal" / f"{UNIT}.log"
        return self.lab.srv / "sglang.log"

    @property
    def unit_file(self) -> Path:
        return self.lab.state / "systemd" / "units" / UNIT

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_for(self, text: str, timeout: float = 60, after: int = 0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_text()[after:]:
                return
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not in the lab server's log:\n{self.log_text()[-2000:]}")

    def wait_ready(self, timeout: float = 60) -> None:
        self.wait_for("The server is fired up and ready to roll!", timeout)


def lab_host_file(lab: Lab, path: Path, manager: str, model: str = MODEL) -> LabHost:
    """Write the host file of the lab host for ``manager`` ("systemd" or "process"); ``model`` for every profile."""
    if manager == "systemd":
        server, log = {"manager": "systemd", "unit": UNIT}, {"kind": "journal"}
    else:
        server = {"manager": "process", "log_file": str(lab.srv / "sglang.log"),
                  "pid_file": str(lab.srv / "sglang.pid"), "workdir": str(lab.srv)}
        log = {"kind": "file", "path": str(lab.srv / "sglang.log")}
    text = host_toml("lab", None, API_PORT, server, log, ssh={"target": ALIAS}, bind="0.0.0.0", model=model,
                     version=lab.version)
    path.write_text(text)
    return LabHost(lab, path, manager)


def start_server(host: LabHost, profile: str) -> None:
    """Start ``profile`` on the lab host: as its systemd unit (written for it), or by hand with nohup."""
    from mtptui.sglang.flags import FlagSet, render_argv, render_command
    from mtptui.sglang.unit import read_unit, with_launch

    flagset = FlagSet.from_profile(host.config.profile(profile), host.config.sglang_version)
    if host.manager == "systemd":
        host.unit_file.parent.mkdir(parents=True, exist_ok=True)
        host.unit_file.write_text(with_launch(read_unit(UNIT_TEMPLATE, name=UNIT), flagset))
        for verb in ("daemon-reload", "start"):
            result = host.lab.run("systemctl", verb, *([UNIT] if verb == "start" else []))
            assert result.returncode == 0, result.stderr
        return
    command = (f"nohup env {render_command(flagset)} >> {host.log} 2>&1 < /dev/null "
               f"& echo $! > {host.lab.srv / 'sglang.pid'}")
    assert render_argv(flagset)  # the profile renders to SGLang arguments
    result = host.lab.run("setsid", "sh", "-c", command)
    assert result.returncode == 0, result.stderr


def operator_env(lab: Lab) -> dict[str, str]:
    """The operator's environment for a subprocess (mtptui in tmux): the private HOME, no SSH agent."""
    env = {k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}
    return {**env, "HOME": str(lab.home)}


def _lab(tmp_path_factory: pytest.TempPathFactory, version: str = "0.5.12.post1") -> Iterator[Lab]:
    missing = lab_missing()
    if missing:
        pytest.skip(missing)
    lab = Lab(tmp_path_factory.mktemp("lab"), version=version)
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
    """The lab host managed by (stand-in) systemd, running the bad redeploy from its unit; HOME is the operator's."""
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


__all__ = ["ALIAS", "API_PORT", "HOSTNAME", "Lab", "LabHost", "PROFILES", "UNIT", "lab", "lab_each", "lab_host_file",
           "lab_process", "lab_process_each", "lab_systemd", "operator_env", "prepare_lab_host", "start_server"]
