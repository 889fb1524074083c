"""LocalTransport: commands run by ``/bin/sh -c`` on this machine (the dashboard on the GPU host, the demo).

The same quoted command line as over SSH reaches the same kind of shell, so both transports behave alike.
"""

from __future__ import annotations

import asyncio
import os
import signal

from mtptui.remote.bounded import GRACE_S, finish, guarded_line, host_timeout
from mtptui.remote.errors import RemoteError
from mtptui.remote.shell import Command
from mtptui.remote.transport import Completed


class LocalStream:
    """stdout of a local subprocess; stderr is collected for the error message."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.exit_status: int | None = None
        self._stderr = bytearray()
        self._stderr_task = asyncio.ensure_future(self._collect_stderr())

    async def _collect_stderr(self) -> None:
        assert self.process.stderr is not None  # opened with stderr=PIPE
        while chunk := await self.process.stderr.read(65536):
            self._stderr += chunk[-65536:]

    async def read(self, size: int = 65536) -> bytes:
        assert self.process.stdout is not None  # opened with stdout=PIPE
        data = await self.process.stdout.read(size)
        if not data:
            await self._stderr_task
            self.exit_status = await self.process.wait()
        return data

    def stderr_text(self) -> str:
        return bytes(self._stderr).decode("utf-8", "replace")

    async def close(self) -> None:
        await _kill_group(self.process)
        self._stderr_task.cancel()


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the shell and what it started in its session (a server started with setsid has its own)."""
    if process.returncode is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await process.wait()


class LocalTransport:
    """Runs commands on this machine."""

    label = "this machine"

    async def forward_port(self, host: str, port: int) -> tuple[str, int]:
        return host, port  # already here

    async def _spawn(self, line: str, stdin: int | None) -> asyncio.subprocess.Process:
        try:
            return await asyncio.create_subprocess_exec(
                "/bin/sh", "-c", line, stdin=stdin, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True, env=os.environ.copy())
        except OSError as exc:
            raise RemoteError(f"cannot run a shell on this machine: {exc.strerror or exc}") from None

    async def run(self, command: Command, timeout: float | None = None) -> Completed:
        stdin = asyncio.subprocess.PIPE if command.input is not None else asyncio.subprocess.DEVNULL
        seconds = host_timeout(timeout)
        process = await self._spawn(guarded_line(command, seconds), stdin)
        try:
            out, err = await asyncio.wait_for(process.communicate(command.input), seconds + GRACE_S)
        except asyncio.TimeoutError:
            await _kill_group(process)
            raise RemoteError(f"{command.what or command.line} timed out after {seconds:g} s on this machine") from None
        except asyncio.CancelledError:  # the caller went away (e.g. the app quit): the command goes too
            await asyncio.shield(_kill_group(process))
            raise
        code = process.returncode
        status = code if code is not None and code >= 0 else None
        return finish(command, Completed(command.line, status, out, err), seconds, self.label)

    async def open_stream(self, command: Command) -> LocalStream:
        return LocalStream(await self._spawn(command.line, asyncio.subprocess.DEVNULL))

    async def close(self) -> None:
        return None
