"""A real OpenSSH sshd on 127.0.0.1 for the SSH tests, and the stand-in GPU host behind it.

    def test_...(sshd): ...  # the fixture, a plugin of tests/conftest.py (pytest_plugins): no import needed

``SSHD`` starts ``sshd -D -f CONFIG -E LOG`` on a free high port with a host key and a client key generated
in a tmp dir, its own sshd_config (``UsePAM no``, ``StrictModes no``, its own AuthorizedKeysFile and PidFile)
and ``SetEnv`` for the session environment. It gives a known_hosts file and the client key, and
``kill_connections()`` kills the per-connection sshd processes, which drops every live SSH connection the
way a network failure does (the listener stays up, so clients can reconnect).

The "GPU host" is this machine seen through sshd, with a process-managed server (a systemd host is the lab's,
tests/lab, whose PID 1 is systemd): its PYTHONPATH starts with the demo's stand-in ``sglang`` package
(``mtptui/demo_sglang``: ``python -m sglang.launch_server`` runs the simulated server, paced by
$MTPTUI_SIM_SPEED) and the tests' network guard. Tests contact 127.0.0.1 only.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import pytest

SSHD_BIN = shutil.which("sshd") or "/usr/sbin/sshd"
ROOT = Path(__file__).resolve().parents[1]
NETGUARD = Path(__file__).resolve().parent / "netguard"
DEMO_SGLANG = ROOT / "mtptui" / "demo_sglang"
# the stand-in nvidia-smi beside it: not on the host's PATH unless a test installs it (tests.lab.Lab.install)
NVIDIA_SMI = ROOT / "mtptui" / "demo_bin" / "nvidia-smi"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def keygen(path: Path) -> str:
    """A new ed25519 key pair without passphrase; the public key line."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "mtptui-test", "-f", str(path)],
                   check=True, stdin=subprocess.DEVNULL)
    return path.with_suffix(".pub").read_text().strip()


def host_env(state_dir: Path) -> dict[str, str]:
    """Environment of an SSH session on the test host (``state_dir``: where the simulated GPUs' state lives)."""
    return {
        "PATH": SYSTEM_PATH,
        "PYTHONPATH": f"{DEMO_SGLANG}:{NETGUARD}:{ROOT}",
        "MTPTUI_SIM_GPU_STATE": str(state_dir / "gpu.json"),  # the server's load, for the stand-in nvidia-smi
        "MTPTUI_STANDIN_PYTHON": sys.executable,
        "LC_ALL": "C.UTF-8",
        "MTPTUI_SIM_SPEED": "200",
    }


def sshd_descendants(listener: int, pids: Iterable[int]) -> list[int]:
    """The processes among ``pids`` (this machine's) below ``listener`` whose command line is still sshd's: the
    per-connection sshd processes of that listener."""
    children: dict[int, list[int]] = {}
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(pid)
    found, todo = [], [listener]
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            try:
                if Path(f"/proc/{child}/cmdline").read_bytes().startswith(b"sshd"):
                    found.append(child)
            except OSError:
                pass
    return found


@dataclass
class SSHD:
    """One sshd listening on 127.0.0.1:port until ``stop``; with ``netns`` in that network namespace (the lab)."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    process: subprocess.Popen | None = None
    netns: str | None = None
    known_as: str | None = None  # the host name the client knows it by (known_hosts); default [127.0.0.1]:port

    @property
    def client_key(self) -> Path:
        return self.root / "client_key"

    @property
    def known_hosts(self) -> Path:
        return self.root / "known_hosts"

    @property
    def host_key(self) -> Path:
        return self.root / "host_key"

    @property
    def log(self) -> Path:
        return self.root / "sshd.log"

    def prepare(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        host_pub = keygen(self.host_key)
        (self.root / "authorized_keys").write_text(keygen(self.client_key) + "\n")
        self.port = self.port or free_port()
        name = self.known_as or f"[127.0.0.1]:{self.port}"
        self.known_hosts.write_text(f"{name} {' '.join(host_pub.split()[:2])}\n")
        setenv = " ".join(f'"{k}={v}"' for k, v in self.env.items())
        config = [f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {self.host_key}",
                  f"PidFile {self.root / 'sshd.pid'}", f"AuthorizedKeysFile {self.root / 'authorized_keys'}",
                  "UsePAM no", "StrictModes no", "PermitRootLogin prohibit-password", "PubkeyAuthentication yes",
                  "PasswordAuthentication no", "KbdInteractiveAuthentication no", "MaxSessions 100",
                  "MaxStartups 100", "LogLevel VERBOSE", "ClientAliveInterval 0"]
        if setenv:
            config.append(f"SetEnv {setenv}")
        (self.root / "sshd_config").write_text("\n".join(config) + "\n")

    def start(self) -> "SSHD":
        self.prepare()
        return self._listen()

    def _listen(self) -> "SSHD":
        Path("/run/sshd").mkdir(exist_ok=True)
        prefix = ["ip", "netns", "exec", self.netns] if self.netns else []
        before = self._listening()
        self.process = subprocess.Popen([*prefix, SSHD_BIN, "-D", "-f", str(self.root / "sshd_config"),
                                         "-E", str(self.log)], stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"sshd exited: {self.log.read_text() if self.log.exists() else ''}")
            if self._listening() > before:
                return self
            time.sleep(0.02)
        raise RuntimeError("sshd did not start listening")

    def _listening(self) -> int:
        """How many times sshd said it listens in its log (LogLevel VERBOSE), whatever network namespace it is in."""
        text = self.log.read_text() if self.log.exists() else ""
        return text.count(f"Server listening on 127.0.0.1 port {self.port}")

    def stop_listening(self) -> None:
        """The host goes away: the listener is stopped and every connection dropped (refused until ``listen_again``)."""
        self.process.send_signal(signal.SIGSTOP)  # no new connection while the live ones are dropped
        self.kill_connections()
        self.process.kill()
        self.process.wait(timeout=10)

    def listen_again(self) -> None:
        """The host is back: a new listener with the same keys and configuration."""
        self._listen()

    def connection_pids(self) -> list[int]:
        """The per-connection sshd processes: every descendant of the listener still named sshd."""
        return sshd_descendants(self.process.pid, (int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()))

    def kill_connections(self) -> int:
        """SIGKILL every per-connection sshd: live connections drop, the listener stays. How many were killed."""
        pids = self.connection_pids()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(pids)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill_connections()
            self.process.terminate()
            self.process.wait(timeout=10)

    def ssh_config(self, **overrides):
        """An SSHConfig that reaches this sshd with the test's key and known_hosts file."""
        from mtptui.config.models import SSHConfig

        fields = {"target": "127.0.0.1", "port": self.port, "user": "root", "identity_file": str(self.client_key),
                  "known_hosts": "strict", "known_hosts_file": str(self.known_hosts), "keepalive_s": 5}
        return SSHConfig(**{**fields, **overrides})


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SSHD]:
    """A real sshd on 127.0.0.1 whose sessions see the stand-in GPU host (one per test module)."""
    root = tmp_path_factory.mktemp("sshd")
    state = root / "host"
    state.mkdir()
    server = SSHD(root / "sshd", env=host_env(state))
    server.start()
    try:
        yield server
    finally:
        server.stop()


PROFILES = {
    "restored": {"flags": {"speculative-num-steps": 3, "speculative-num-draft-tokens": 4,
                           "mem-fraction-static": 0.88, "context-length": 131072, "max-running-requests": 16,
                           "mamba-full-memory-ratio": 0.5, "mamba-scheduler-strategy": "extra_buffer",
                           "reasoning-parser": "qwen3", "tool-call-parser": "qwen3_coder"},
                 "note": "known good"},
    "redeploy-1step": {"flags": {"speculative-num-steps": 1, "max-running-requests": 1,
                                 "mamba-scheduler-strategy": "extra_buffer"}, "note": "the bad redeploy"},
    "no-extra-buffer": {"flags": {"speculative-num-steps": 3, "speculative-num-draft-tokens": 4},
                        "note": "hybrid model with speculative decoding but no extra_buffer: crashes at start"},
}
MODEL = "/data/models/Qwen3.6-27B"


def host_toml(name: str, sshd: SSHD | None, api_port: int, server: dict, log: dict, *, ssh: dict | None = None,
              bind: str = "127.0.0.1", model: str = MODEL, version: str = "0.5.12.post1") -> str:
    """A host file for the stand-in GPU host; every profile runs the simulated server on ``api_port``.

    The host is reached through ``sshd`` (its address, key and known_hosts file), or as ``ssh`` says.
    ``model`` is every profile's model path (the simulated server only reads its last part, the model's name).
    ``version`` is the host's SGLang (its option names: 0.5.23 renamed --mamba-scheduler-strategy).
    """
    import tomli_w

    from mtptui.engines.sglang.flags.table import renamed

    names = {old.lstrip("-"): new.lstrip("-") for old, new in renamed(version).items()}
    profiles = {}
    for profile, spec in PROFILES.items():
        flags = {"host": bind, "port": api_port, "tp-size": 2, "speculative-algorithm": "NEXTN",
                 "speculative-eagle-topk": 1, **{names.get(k, k): v for k, v in spec["flags"].items()}}
        profiles[profile] = {"model_path": model, "python": sys.executable, "flags": flags,
                             "env": {"SGLANG_ENABLE_SPEC_V2": "1"},
                             "note": spec["note"]}
    data = {"name": name, "api_url": f"http://127.0.0.1:{api_port}", "known_good": "restored",
            "sglang_version": version, "server": server, "log": log, "profiles": profiles}
    if sshd is not None:
        data["ssh"] = sshd.ssh_config().model_dump(exclude_none=True)
    if ssh is not None:
        data["ssh"] = ssh
    return tomli_w.dumps(data)


@dataclass
class TestHost:
    """A host file for the stand-in GPU host behind ``sshd``, and where its server keeps things."""

    path: Path
    name: str
    api_port: int
    root: Path

    @property
    def config(self):
        from mtptui.config.loader import load_host_file

        return load_host_file(self.path)

    @property
    def log(self) -> Path:
        return self.root / "srv" / "sglang.log"

    @property
    def pid_file(self) -> Path:
        return self.root / "srv" / "sglang.pid"

    def cleanup(self) -> None:
        """Kill every simulated server of this host (its port is unique to it)."""
        needle = f"--port\0{self.api_port}\0".encode()
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and needle in (entry / "cmdline").read_bytes():
                    os.killpg(int(entry.name), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass


def process_host(tmp_path: Path, sshd: SSHD | None, name: str = "gpu") -> TestHost:
    host = TestHost(tmp_path / f"{name}.toml", name, free_port(), tmp_path)
    server = {"manager": "process", "log_file": str(host.log), "pid_file": str(host.pid_file)}
    host.path.write_text(host_toml(name, sshd, host.api_port, server, {"kind": "file", "path": str(host.log)}))
    return host


def nohup_server(sshd: SSHD, host: TestHost, profile: str) -> subprocess.Popen:
    """Start a profile by hand, as the mission's engineer did: nohup python -m sglang.launch_server ... > LOG."""
    from mtptui.engines.sglang.flags import FlagSet, render_argv

    flagset = FlagSet.from_profile(host.config.profile(profile), host.config.sglang_version)
    host.log.parent.mkdir(parents=True, exist_ok=True)
    with open(host.log, "ab") as log:
        return subprocess.Popen(["nohup", *flagset.entry_argv, *render_argv(flagset)], stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                                env={**os.environ, **sshd.env, **flagset.env})


def wait_ready(host: TestHost, log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and "ready to roll" in log.read_text(errors="replace"):
            return
        time.sleep(0.05)
    raise AssertionError(f"server on port {host.api_port} did not become ready:\n{log.read_text()[-2000:]}")
