"""Shared by the ui_* benchmarks: a private tmux server running a command at 160x48, and /proc readings."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TMUX = shutil.which("tmux") or "/usr/bin/tmux"
CLK_TCK = os.sysconf("SC_CLK_TCK")


class Terminal:
    """``tmux -L NAME``: its own server, so the command gets exactly the environment given."""

    def __init__(self, name: str) -> None:
        self.socket = f"{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"  # never a dying server's name

    def tmux(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([TMUX, "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True,
                              timeout=30)

    def start(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in {"TERM": "xterm-256color", **(env or {})}.items())
        command = f"cd {shlex.quote(str(ROOT))} && exec env {assignments} {shlex.join(argv)}"
        self.tmux("new-session", "-d", "-s", "bench", "-x", "160", "-y", "48", command)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "bench").stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "bench", *keys)

    def pane_pid(self) -> int:
        return int(self.tmux("display-message", "-p", "-t", "bench", "#{pane_pid}").stdout.strip())

    def wait_for(self, text: str, timeout: float = 120.0, poll_s: float = 0.005) -> float:
        """Seconds until ``text`` is on screen."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if text in self.screen():
                return time.monotonic() - start
            time.sleep(poll_s)
        raise SystemExit(f"gave up waiting for {text!r}; screen:\n{self.screen()}")

    def wait_closed(self, timeout: float = 15.0) -> None:
        """Until the command has exited (the session ends with it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.tmux("has-session", "-t", "bench").returncode == 0:
            time.sleep(0.05)

    def close(self) -> None:
        self.tmux("kill-server")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_percent(pid: int, seconds: float) -> float:
    """Average CPU of ``pid`` over ``seconds`` (100 = one core)."""
    before, start = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return 100 * (cpu_seconds(pid) - before) / (time.monotonic() - start)
