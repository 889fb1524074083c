"""Host files for the lab host, its server started in the mission's bad state, and the operator's side.

``LabHost`` is a host file plus where its server keeps things: ``unit_file`` (the real unit on the host's disk,
as this machine sees it), ``log_text()`` (the unit's journal, or the nohup log file), ``wait_for``/``wait_ready``.
"""

from __future__ import annotations

import codecs
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tests.lab.image import OPERATOR
from tests.lab.machine import children
from tests.sshd import MODEL, host_toml

if TYPE_CHECKING:
    from tests.lab import Lab

ALIAS = "gpu-lab"
OPERATOR_ALIAS = "gpu-lab-ops"  # the same host, as the non-root account
HOSTNAME = "gpu.lab"
API_PORT = 30000
# A request to the operator's own 127.0.0.1:API_PORT that tests send to show it never reaches the lab (another
# test may listen there: test_lab_bench's decoy, which does not count these).
ISOLATION_PROBE = "/mtptui-isolation-probe"
UNIT = "sglang-qwen.service"
UNIT_DIR = "/etc/systemd/system"
READY = "The server is fired up and ready to roll!"

UNIT_TEMPLATE = """[Unit]
Description=SGLang Qwen3.6-27B (lab host)
After=network-online.target

[Service]
Type=simple
ExecStart=/bin/false
Restart=no

[Install]
WantedBy=multi-user.target
"""


def ssh_config(ns: str, identity: Path, known_hosts: Path) -> str:
    """The operator's ~/.ssh/config: the lab behind a ProxyCommand, the same host through a ProxyJump, and the
    host as its non-root account."""
    proxy = f"    ProxyCommand ip netns exec {ns} nc 127.0.0.1 %p\n"
    keys = f"    IdentityFile {identity}\n    UserKnownHostsFile {known_hosts}\n"
    return (f"Host {ALIAS}\n    HostName {HOSTNAME}\n    User root\n    Port 22\n{keys}{proxy}\n"
            f"Host {ALIAS}-jump\n    HostName 127.0.0.1\n    User root\n{keys}    ProxyJump {ALIAS}\n\n"
            f"Host {OPERATOR_ALIAS}\n    HostName {HOSTNAME}\n    User {OPERATOR}\n    Port 22\n{keys}{proxy}")


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
        """The nohup server's log file (a systemd unit's log is its journal: ``log_text``, ``append_log``)."""
        assert self.manager == "process", "a systemd unit logs to the journal: use log_text() or append_log()"
        return self.lab.srv / "sglang.log"

    @property
    def unit_path(self) -> str:
        """The unit's path on the host."""
        return f"{UNIT_DIR}/{UNIT}"

    @property
    def unit_file(self) -> Path:
        """The unit on the host's disk, as this machine sees it (writing it is writing on the host)."""
        return self.lab.path(self.unit_path)

    def log_text(self) -> str:
        if self.manager == "process":
            return self.log.read_text(errors="replace") if self.log.exists() else ""
        return self.lab.machine.run("journalctl", "-u", UNIT, "-o", "cat", "--no-pager").stdout

    def append_log(self, line: str) -> None:
        """One line in the server's log as the host keeps it: the nohup file, or the unit's journal (an entry
        root writes about the unit, which ``journalctl -u`` shows with the unit's own)."""
        if self.manager == "process":
            with self.log.open("a") as log:
                log.write(line.rstrip("\n") + "\n")
            return
        fields = f"MESSAGE={line.rstrip()}\nOBJECT_SYSTEMD_UNIT={UNIT}\nSYSLOG_IDENTIFIER=sglang\n"
        written = self.lab.machine.run("logger", "--journald", input=fields)
        assert written.returncode == 0, written.stderr

    def wait_for(self, text: str, timeout: float = 60, after: int = 0) -> None:
        """Until ``text`` is in the log past its first ``after`` characters (of ``log_text()``)."""
        found = self._in_journal(text, timeout, after) if self.manager == "systemd" else \
            self._in_file(text, timeout, after)
        if not found:
            raise AssertionError(f"{text!r} not in the lab server's log:\n{self.log_text()[-2000:]}")

    def _in_file(self, text: str, timeout: float, after: int) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_text()[after:]:
                return True
            time.sleep(0.05)
        return False

    def _in_journal(self, text: str, timeout: float, after: int) -> bool:
        """Follow the unit's journal from its start (``journalctl -f``: woken by each entry, no polling), as
        ``log_text()`` prints it."""
        follow = subprocess.Popen([*self.lab.machine.enter(), "journalctl", "-u", UNIT, "-o", "cat", "--no-pager",
                                   "--no-tail", "-f"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert follow.stdout is not None
        decoder, seen, deadline = codecs.getincrementaldecoder("utf-8")("replace"), "", time.monotonic() + timeout
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(follow.stdout, selectors.EVENT_READ)
                while text not in seen[after:]:
                    left = deadline - time.monotonic()
                    if left <= 0 or not selector.select(left):
                        return False
                    chunk = os.read(follow.stdout.fileno(), 65536)
                    if not chunk:
                        return False  # journalctl ended
                    seen += decoder.decode(chunk)
            return True
        finally:
            _end(follow)

    def wait_ready(self, timeout: float = 60) -> None:
        self.wait_for(READY, timeout)


def _end(follow: subprocess.Popen) -> None:
    """End a command run in the machine, and its program there: nsenter forks into the machine's PID namespace
    and only waits for its child, so the child (journalctl) is killed first; nsenter reaps it and exits, and
    the host's process count is as it was when this returns."""
    inside = children(follow.pid)
    for pid in inside:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if not inside:  # not forked yet
        follow.kill()
    try:
        follow.wait(timeout=10)
    except subprocess.TimeoutExpired:
        follow.kill()
        follow.wait()
    if follow.stdout is not None:
        follow.stdout.close()


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


def unit_text(host: LabHost, profile: str, template: str = UNIT_TEMPLATE) -> str:
    """The lab's unit running ``profile`` of the host file (its ExecStart= and Environment=)."""
    from mtptui.engines.sglang.flags import FlagSet
    from mtptui.engines.sglang.unit import read_unit, with_launch

    flagset = FlagSet.from_profile(host.config.profile(profile), host.config.sglang_version)
    return with_launch(read_unit(template, name=UNIT), flagset)


def start_server(host: LabHost, profile: str) -> None:
    """Start ``profile`` on the lab host: as its systemd unit (written for it), or by hand with nohup."""
    from mtptui.engines.sglang.flags import FlagSet, render_argv, render_command

    if host.manager == "systemd":
        host.unit_file.write_text(unit_text(host, profile))
        host.lab.systemctl("daemon-reload")
        host.lab.systemctl("start", UNIT)
        return
    flagset = FlagSet.from_profile(host.config.profile(profile), host.config.sglang_version)
    command = (f"nohup env {render_command(flagset)} >> {host.log} 2>&1 < /dev/null "
               f"& echo $! > {host.lab.srv / 'sglang.pid'}")
    assert render_argv(flagset)  # the profile renders to SGLang arguments
    result = host.lab.run("setsid", "sh", "-c", command)
    assert result.returncode == 0, result.stderr


def operator_env(lab: Lab) -> dict[str, str]:
    """The operator's environment for a subprocess (mtptui in tmux): the private HOME, no SSH agent."""
    env = {k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}
    return {**env, "HOME": str(lab.home)}
