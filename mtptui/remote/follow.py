"""Follow a server log over a transport: reconnect with capped exponential backoff, resume exactly.

    follower = LogFollower(transport, FileLog("/var/log/sglang.log"), start=Start.tail(200))
    async for item in follower.events():      # LogChunk or ConnectionStatus, in order
        ...

A chunk is delivered once, and its ``position`` is the resume point: after a dropped connection the reader
starts again at the position of the last delivered chunk (byte offset for files, cursor for the journal), so
no line is lost or shown twice. ``ConnectionStatus`` updates say what the connection is doing
(connected / reconnecting in N s / failed: why); ``on_status`` receives them too.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from dataclasses import dataclass
from typing import AsyncGenerator, AsyncIterator, Callable, Protocol, Union

from mtptui.remote.errors import RemoteError
from mtptui.remote.logsource import NO_SUCH_FILE, LogChunk, LogPosition, Start
from mtptui.remote.shell import Command
from mtptui.remote.transport import Stream, Transport

COMMAND_NOT_FOUND = 127


@dataclass(frozen=True)
class ConnectionStatus:
    """What the log connection is doing: connecting, connected, reconnecting, failed or stopped."""

    state: str
    reason: str = ""
    retry_in_s: float | None = None
    attempt: int = 0

    def __str__(self) -> str:
        if self.state == "reconnecting" and self.retry_in_s is not None:
            return f"reconnecting in {self.retry_in_s:g} s" + (f" ({self.reason})" if self.reason else "")
        if self.state == "failed":
            return f"failed: {self.reason}"
        if self.state == "connecting" and self.reason:
            return f"connecting ({self.reason})"
        return self.state


@dataclass(frozen=True)
class Backoff:
    """Delays between attempts: ``initial_s`` doubling (``factor``) up to ``cap_s``; ``max_attempts`` or forever."""

    initial_s: float = 0.5
    factor: float = 2.0
    cap_s: float = 30.0
    max_attempts: int | None = None

    def delay(self, attempt: int) -> float:
        return min(self.cap_s, self.initial_s * self.factor ** max(0, attempt - 1))

    def exhausted(self, attempt: int) -> bool:
        return self.max_attempts is not None and attempt > self.max_attempts


class ChunkDecoder(Protocol):
    """Turns the follow command's output into log chunks (FrameDecoder for a file, JournalDecoder for a journal)."""

    def feed(self, data: bytes) -> list[LogChunk]: ...


class LogSource(Protocol):
    def command(self, position: LogPosition, start: Start, wait: bool = False) -> Command: ...

    def decoder(self, position: LogPosition) -> ChunkDecoder: ...

    def describe(self) -> str: ...


Item = Union[LogChunk, ConnectionStatus]


class LogFollower:
    """One followed log; ``events()`` runs until ``stop()`` or a failure that retrying cannot fix.

    A log file that does not exist is such a failure, unless ``wait_for_log`` (a restart that creates it).
    """

    def __init__(self, transport: Transport, source: LogSource, *, start: Start = Start.end(),
                 position: LogPosition = None, backoff: Backoff = Backoff(),
                 on_status: Callable[[ConnectionStatus], None] | None = None, wait_for_log: bool = False) -> None:
        self.transport, self.source, self.start = transport, source, start
        self.wait_for_log = wait_for_log
        self.position = position
        self.backoff = backoff
        self.on_status = on_status
        self.status = ConnectionStatus("connecting")
        self._stopped = asyncio.Event()
        self._retry = asyncio.Event()  # set by retry_now: cut the wait before the next attempt short
        self._stream: Stream | None = None

    def _set(self, status: ConnectionStatus) -> ConnectionStatus:
        self.status = status
        if self.on_status is not None:
            self.on_status(status)
        return status

    async def chunks(self) -> AsyncIterator[LogChunk]:
        """Only the log chunks (statuses still reach ``on_status`` and ``status``)."""
        async for item in self.events():
            if isinstance(item, LogChunk):
                yield item

    async def events(self) -> AsyncIterator[Item]:
        attempt = 0
        yield self._set(ConnectionStatus("connecting", self.source.describe()))
        while not self._stopped.is_set():
            failure = None
            try:
                async with aclosing(self._one_stream()) as items:
                    async for item in items:
                        if isinstance(item, LogChunk):
                            attempt = 0
                        yield item
            except RemoteError as exc:
                failure = (str(exc), exc.retriable)
            if self._stopped.is_set():
                break
            reason, retriable = failure or self._ended_reason()
            attempt += 1
            if not retriable or self.backoff.exhausted(attempt):
                yield self._set(ConnectionStatus("failed", reason, attempt=attempt))
                return
            delay = self.backoff.delay(attempt)
            yield self._set(ConnectionStatus("reconnecting", reason, delay, attempt))
            await self._sleep(delay)
        yield self._set(ConnectionStatus("stopped"))

    async def _one_stream(self) -> AsyncGenerator[Item, None]:
        stream = await self.transport.open_stream(self.source.command(self.position, self.start, self.wait_for_log))
        self._stream, self._last_exit, self._last_stderr = stream, None, ""
        try:
            yield self._set(ConnectionStatus("connected"))
            decoder = self.source.decoder(self.position)
            while data := await stream.read():
                for chunk in decoder.feed(data):
                    self.position = chunk.position
                    if chunk.data or chunk.reset:
                        yield chunk
            self._last_exit, self._last_stderr = stream.exit_status, stream.stderr_text()
        finally:
            self._stream = None
            await stream.close()

    def _ended_reason(self) -> tuple[str, bool]:
        """Why the reader ended by itself, and whether another try may help."""
        lines = [line.strip() for line in self._last_stderr.splitlines() if line.strip()]
        why = f": {lines[-1]}" if lines else ""
        if self._last_exit in (COMMAND_NOT_FOUND, NO_SUCH_FILE):
            what = self.source.describe()
            what = what if what.startswith("/") else f"the {what}"
            return f"cannot follow {what} on {self.transport.label}{why}", False
        return f"the reader of the {self.source.describe()} exited (status {self._last_exit}){why}", True

    async def _sleep(self, delay: float) -> None:
        """The backoff's wait; ended early by ``stop()`` or ``retry_now()`` (also when asked just before it)."""
        stopped, retry = asyncio.ensure_future(self._stopped.wait()), asyncio.ensure_future(self._retry.wait())
        try:
            await asyncio.wait({stopped, retry}, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            retry.cancel()
            self._retry.clear()

    def retry_now(self) -> None:
        """Try to connect again now instead of at the end of the backoff (the operator asked)."""
        self._retry.set()

    async def stop(self) -> None:
        """End ``events()``: the current reader is closed and no reconnection is tried."""
        self._stopped.set()
        stream = self._stream
        if stream is not None:
            await stream.close()
