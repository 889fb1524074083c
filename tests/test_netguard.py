"""The test network guard refuses any address off loopback, in-process and in subprocesses."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest


def test_in_process_connection_off_loopback_is_refused() -> None:
    with socket.socket() as sock, pytest.raises(ConnectionRefusedError, match="loopback only"):
        sock.connect(("192.0.2.1", 22))  # TEST-NET-1: never routed


def test_subprocess_connection_off_loopback_is_refused() -> None:
    code = "import socket; s = socket.socket(); s.connect(('192.0.2.1', 22))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "loopback only" in result.stderr


def test_loopback_still_works() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname(), timeout=5):
            pass
