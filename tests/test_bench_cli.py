"""`mtptui bench` on bad input: one sentence, exit 1, no traceback."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", *args], capture_output=True,
                          text=True, timeout=60)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_sentence(result: subprocess.CompletedProcess, code: int = 1) -> str:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def test_unreachable_server_is_one_sentence() -> None:
    err = one_sentence(run_cli("--url", f"http://127.0.0.1:{free_port()}", "--requests", "1"))
    assert err.startswith("mtptui: cannot reach the server at http://127.0.0.1:") and "cannot connect" in err


def test_host_over_ssh_points_to_url() -> None:
    err = one_sentence(run_cli("ct129"))
    assert "benchmarking over SSH needs the remote-ops layer; use --url" in err


@pytest.mark.parametrize("args, message", [
    ((), "give either a HOST or --url URL"),
    (("ct129", "--url", "http://127.0.0.1:1"), "give either a HOST or --url URL"),
    (("--url", "127.0.0.1:30000"), "must start with http://"),
    (("--url", "http://127.0.0.1:1", "--concurrency", "0"), "--concurrency must be positive"),
    (("--url", "http://127.0.0.1:1", "--prompts", "nosuch"), "unknown prompt set 'nosuch'"),
])
def test_bad_arguments(args: tuple, message: str) -> None:
    assert message in one_sentence(run_cli(*args))


def test_unknown_host_is_a_config_error() -> None:
    assert "unknown host 'nosuch'" in one_sentence(run_cli("nosuch"), code=2)
