"""The Transport protocol: run a command on the host, or stream a long-running one's output.

Two implementations: ``SSHTransport`` (asyncssh, mtptui.remote.ssh) and ``LocalTransport`` (subprocesses,
mtptui.remote.local). Both take ``Command`` objects built by mtptui.remote.shell, so every value is quoted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from mtptui.remote.errors import CommandFailed, ReadOnlyError
from mtptui.remote.shell import Command


@dataclass(frozen=True)
class Completed:
    """A finished command: exit status (None when killed by a signal), stdout and stderr as bytes."""

    command: str
    exit_status: int | None
    stdout: bytes
    stderr: bytes

    @property
    def ok(self) -> bool:
        return self.exit_status == 0

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")

    def check(self, what: str = "") -> "Completed":
        """Self when it succeeded, else CommandFailed naming ``what`` and the last line of stderr."""
        if self.ok:
            return self
        lines = [line for line in self.err.strip().splitlines() if line.strip()]
        why = lines[-1].strip() if lines else f"exit status {self.exit_status}"
        raise CommandFailed(f"{what or self.command} failed: {why}", self.exit_status, self.err)


class Stream(Protocol):
    """Output of a running command; ``read`` returns b"" at the end, then ``exit_status`` is known."""

    exit_status: int | None

    async def read(self, size: int = 65536) -> bytes: ...

    def stderr_text(self) -> str: ...

    async def close(self) -> None: ...


class Transport(Protocol):
    """How mtptui reaches a host."""

    label: str

    async def run(self, command: Command, timeout: float | None = None) -> Completed: ...

    async def open_stream(self, command: Command) -> Stream: ...

    async def forward_port(self, host: str, port: int) -> tuple[str, int]:
        """An address on this machine that reaches ``host:port`` as the remote machine sees it."""
        ...

    async def close(self) -> None: ...


class ReadOnlyTransport:
    """Wraps a transport and refuses, with one sentence, every command that changes the host."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.label = inner.label

    def _guard(self, command: Command) -> None:
        if command.changes_host:
            what = command.what or command.line
            raise ReadOnlyError(f"refusing to {what} on {self.label}: mtptui runs with --readonly")

    async def run(self, command: Command, timeout: float | None = None) -> Completed:
        self._guard(command)
        return await self.inner.run(command, timeout)

    async def open_stream(self, command: Command) -> Stream:
        self._guard(command)
        return await self.inner.open_stream(command)

    async def forward_port(self, host: str, port: int) -> tuple[str, int]:
        return await self.inner.forward_port(host, port)  # reading an API changes nothing on the host

    async def close(self) -> None:
        await self.inner.close()
