"""End to end: `mtptui demo` in a real terminal (tmux, 160x48), read from the captured screen.

The tmux server is our own (``-L``), so the command gets exactly the environment given here; it is killed at
teardown whatever happened. The demo's server starts fast (MTPTUI_DEMO_SPEED=200, the pace the other demo tests
use); decode batches come at the simulated server's real token rate, so seeing them takes a few seconds. The vLLM
demo's server logs its stats every 3 s (VLLM_LOG_STATS_INTERVAL, vLLM's own setting; 10 s by default), so its
first steady intervals come sooner.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
TMUX = shutil.which("tmux")

pytestmark = [pytest.mark.e2e, pytest.mark.needs(None if TMUX else "tmux is not installed")]


class Terminal:
    """One tmux server and session running a command in a 160x48 window."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([TMUX, "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True,
                              timeout=30)

    def start(self, command: str) -> None:
        result = self.tmux("new-session", "-d", "-s", "demo", "-x", "160", "-y", "48", command)
        assert result.returncode == 0, result.stderr

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "demo").stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "demo", *keys)

    def wait_for(self, what: str, predicate: Callable[[str], bool], timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"the screen never showed {what} within {timeout} s; last screen:\n{screen}")


@contextmanager
def own_terminal(name: str) -> Iterator[Terminal]:
    """A Terminal on a tmux server of its own, killed on the way out whatever happened.

    Each call gets a fresh socket name: a server told to ``kill-server`` still holds its socket for a moment,
    and a test that reused the name met the dying server ("server exited unexpectedly").
    """
    term = Terminal(f"{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        yield term
    finally:
        term.tmux("kill-server")
        wait_until_gone(term)


def wait_until_gone(term: Terminal, timeout: float = 5.0) -> None:
    """Wait until the server no longer answers, so nothing of it outlives the test."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and term.tmux("has-session").returncode == 0:
        time.sleep(0.05)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    with own_terminal("mtptui-e2e") as term:
        yield term


def demo_command(tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> str:
    env = {"MTPTUI_DEMO_SPEED": "200", "TMPDIR": str(tmp_path), "TERM": "xterm-256color", "COLUMNS": "160",
           "LINES": "48", **{k: os.environ[k] for k in os.environ if k.startswith("XDG_")}, **(env or {})}
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    demo = shlex.join([sys.executable, "-m", "mtptui.cli.main", "demo", *options])
    return (f"cd {shlex.quote(str(ROOT))} && env {assignments} {demo}; "
            f"echo EXITED $?; sleep 60")


def number_after(label: str, screen: str) -> float:
    match = re.search(re.escape(label) + r"\s+([\d.]+) now", screen)
    assert match, f"no {label!r} value on screen:\n{screen}"
    return float(match.group(1))


def test_demo_shows_the_bad_redeploy_live_and_quits_cleanly(terminal: Terminal, tmp_path: Path) -> None:
    terminal.start(demo_command(tmp_path))
    screen = terminal.wait_for("the header", lambda s: "mtptui  demo" in s and "● connected" in s
                               and "SGLang 0.5.12.post1" in s, 30)  # the version comes with the first status
    assert "Quit" in screen
    screen = terminal.wait_for("a ready server with steady decode batches",
                               lambda s: "● ready" in s and "steady mean" in s and "mean of" in s)
    lines = screen.splitlines()
    assert len(lines) == 48 and all(len(line) <= 160 for line in lines)
    assert re.search(r"TP0\s+25\.64\s+2\.82", screen) and re.search(r"TP1\s+25\.64\s+2\.82", screen)
    assert re.search(r"steps\s+1\b", screen) and re.search(r"draft tokens\s+2 \(auto\)", screen)
    assert "from         running pid" in screen
    assert 1.3 < number_after("accept len", screen) < 2.2
    assert 0.3 < number_after("accept rate", screen) < 1.0
    assert re.search(r"15/15", screen) and "Decode batch" in screen

    terminal.keys("space")
    terminal.wait_for("the paused log", lambda s: "log ‖ paused" in s, 10)
    terminal.keys("End")
    terminal.wait_for("the log following again", lambda s: "log ▸ following" in s, 10)

    terminal.keys("q")
    screen = terminal.wait_for("the app's exit", lambda s: "EXITED" in s, 30)
    assert "EXITED 0" in screen and "the simulated server stopped" in screen
    (run_dir,) = (Path(os.environ["XDG_STATE_HOME"]) / "mtptui" / "demo").glob("run-*")  # the runs' own folder
    pid = int((run_dir / "sglang.pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    assert (run_dir / "sglang-qwen.service").is_file() and "ready to roll" in (run_dir / "sglang.log").read_text()


def test_the_vllm_demo_shows_vllm_speculation_and_throughput(terminal: Terminal, tmp_path: Path) -> None:
    terminal.start(demo_command(tmp_path, "--engine", "vllm", env={"VLLM_LOG_STATS_INTERVAL": "3"}))
    screen = terminal.wait_for("a ready vLLM server with its decode intervals",
                               lambda s: "● ready" in s and "steady mean" in s and "mean of" in s, 90)
    assert "vLLM 0.32.0" in screen and "SGLang" not in screen  # the banner's version, the host's engine
    assert re.search(r"algorithm\s+mtp", screen) and re.search(r"steps\s+1\b", screen)
    assert re.search(r"per position\s+0\.\d\d", screen)
    assert 1.3 < number_after("accept len", screen) < 2.0  # one MTP token: at most 2
    assert re.search(r"TP0\s+28\.46\s+—\s+13\.45", screen) and re.search(r"TP1\s+28\.46", screen)
    assert "414,896 tok" in screen and re.search(r"running 1\b", screen)
    assert "waiting for decode batches" not in screen and "Engine 000:" in screen
    terminal.keys("q")
    screen = terminal.wait_for("the app's exit", lambda s: "EXITED" in s, 30)
    assert "EXITED 0" in screen
