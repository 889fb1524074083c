"""The lab host's sshd, started by systemd (Debian's ``ssh.service``), and the network failures tests cause.

``kill_connections`` drops every live SSH connection the way a network failure does: the per-connection sshd
processes on the host die, and so do the operator's ProxyCommands (``nc``, which would otherwise notice only
when the client next writes: a follower that only reads would wait for its keepalive). The listener stays, so
clients can reconnect. ``stop_listening`` makes the host go away (no listener, every connection dropped) until
``listen_again`` starts the service again.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.lab.machine import Machine
from tests.sshd import sshd_descendants

SERVICE = "ssh.service"


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@dataclass
class LabSSHD:
    """The sshd of one lab machine."""

    machine: Machine

    def listener(self) -> int | None:
        """The listener's PID on this machine (ssh.service's main process), or None when it does not run."""
        out = self.machine.run("systemctl", "show", "-p", "MainPID", "--value", SERVICE).stdout.strip()
        return self.machine.outer_pid(int(out)) if out.isdigit() and int(out) > 0 else None

    def connection_pids(self) -> list[int]:
        """The per-connection sshd processes (this machine's PIDs): every descendant of the listener named sshd."""
        listener = self.listener()
        return sshd_descendants(listener, self.machine.processes().values()) if listener is not None else []

    def proxy_pids(self) -> list[int]:
        """The operator's ProxyCommands (``ip netns exec NS nc``): in the lab's network, outside its machine."""
        out = subprocess.run(["ip", "netns", "pids", self.machine.netns], capture_output=True, text=True).stdout
        inside = set(self.machine.processes().values())
        return [int(pid) for pid in out.split() if int(pid) not in inside and _comm(int(pid)) == "nc"]

    def kill_connections(self) -> int:
        """SIGKILL every per-connection sshd and ProxyCommand: live connections drop, the listener stays. How many
        connections were dropped (per-connection sshd processes killed)."""
        pids = self.connection_pids()
        for pid in [*pids, *self.proxy_pids()]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(pids)

    def stop_listening(self) -> None:
        """The host goes away: no new connection is accepted, every live one is dropped, the listener stopped."""
        listener = self.listener()
        if listener is not None:
            os.kill(listener, signal.SIGSTOP)  # no new connection while the live ones are dropped
        self.kill_connections()
        stopped = self.machine.run("systemctl", "stop", SERVICE)
        assert stopped.returncode == 0, stopped.stderr

    def listen_again(self) -> None:
        """The host is back: ssh.service started again (Type=notify: it returns once sshd listens)."""
        started = self.machine.run("systemctl", "start", SERVICE)
        assert started.returncode == 0, started.stderr
