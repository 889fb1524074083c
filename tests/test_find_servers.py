"""find_servers on this machine's real /proc: real processes whose command lines start a server, or nearly do."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from mtptui.remote.local import LocalTransport
from mtptui.remote.procinfo import find_servers

LOOKALIKES = {
    "sglang": ["-m", "sglang.launch_server", "--port", "1"],
    "sglang serve": ["sglang", "serve", "--model-path", "m"],
    "vllm": ["vllm", "serve", "tiny", "--port", "2"],
    "vllm module": ["-m", "vllm.entrypoints.openai.api_server", "--model", "m"],
    "not quite": ["-m", "sglang.launch_serverX"],  # the first grep's loose pattern takes it; the exact test must not
    "spaced word": ["-m vllm.entrypoints.cli.main serve"],  # one argv word with real spaces: a server's line too
}


@pytest.fixture
def processes():
    """A sleeping shell per command line above (``sh -c 'sleep 60; :' ARGV...``: $0.. are the words)."""
    started = {name: subprocess.Popen(["sh", "-c", "sleep 60; :", *argv]) for name, argv in LOOKALIKES.items()}
    yield {name: proc.pid for name, proc in started.items()}
    for proc in started.values():
        proc.kill()
        proc.wait()


def test_the_servers_among_this_machines_processes_are_found_and_a_lookalike_is_not(processes) -> None:
    found = dict(asyncio.run(find_servers(LocalTransport())))
    for name in ("sglang", "sglang serve", "vllm", "vllm module", "spaced word"):
        assert found.get(processes[name]) == os.getpid(), name
    assert processes["not quite"] not in found


def test_a_grep_that_cannot_read_bytes_as_text_still_finds_every_server(processes, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """An older or smaller grep without -a: every process gets the exact test, and the answer is the same."""
    real = subprocess.run(["sh", "-c", "command -v grep"], capture_output=True, text=True, check=True).stdout.strip()
    fake = tmp_path / "grep"
    fake.write_text(f'#!/bin/sh\ncase "$1" in -a*) echo "grep: invalid option -- a" >&2; exit 2;; esac\n'
                    f'exec {real} "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    found = dict(asyncio.run(find_servers(LocalTransport())))
    for name in ("sglang", "sglang serve", "vllm", "vllm module", "spaced word"):
        assert found.get(processes[name]) == os.getpid(), name
    assert processes["not quite"] not in found
