"""ssh_config's ProxyCommand, run by mtptui itself on one end of a socket pair.

asyncssh would run the command through asyncio's subprocess support; on Python 3.11 a connection cancelled while
asyncio connects that command's pipes never finishes cancelling (CPython issue 125502), so quitting the dashboard
during a reconnect could hang for ever. A process started by ``subprocess.Popen`` with the far end of a socket pair
as its stdin and stdout leaves no such window: asyncssh gets the near end as an already-connected socket.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
from typing import IO, Sequence

STDERR_KEPT = 2048  # bytes of the command's own words kept for the error sentence


class ProxyProcess:
    """One running ProxyCommand; ``sock`` is the SSH connection's end of it."""

    def __init__(self, process: subprocess.Popen[bytes], sock: socket.socket, stderr: IO[bytes]) -> None:
        self.process, self.sock, self._stderr = process, sock, stderr

    @classmethod
    def start(cls, argv: Sequence[str]) -> "ProxyProcess":
        """Start ``argv`` (split like asyncssh splits ProxyCommand: no shell) in a session of its own."""
        ours, theirs = socket.socketpair()
        stderr = tempfile.TemporaryFile()
        try:
            process = subprocess.Popen(list(argv), stdin=theirs.fileno(), stdout=theirs.fileno(), stderr=stderr,
                                       start_new_session=True, close_fds=True)
        except OSError:
            ours.close()
            stderr.close()
            raise
        finally:
            theirs.close()
        return cls(process, ours, stderr)

    def said(self) -> str:
        """The last line the command wrote to its stderr (why it could not connect), or ""."""
        self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, self._stderr.tell() - STDERR_KEPT))
        lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""

    def stop(self) -> None:
        """End the command and everything it started (its session), and reap it."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.sock.close()
        self._stderr.close()
