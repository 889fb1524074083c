"""What the dashboard consumes, free of Textual: log bytes, the connection's state, and the host's status.

A feed is an async iterator of items (``LogData``, ``Connection``, ``HostStatus``, ``GpuReading``: the live GPU
poll of ``mtptui.ops.gpu_poll``) plus ``close()``:

    async for item in feed.items():
        ...

Implementations here: ``FileTailFeed`` (a local log file, followed across truncation and rotation),
``FollowerFeed`` (adapts ``mtptui.remote.follow.LogFollower``) and ``merge_feeds`` (one feed from a log feed
plus extra sources, e.g. the status poller of ``mtptui.ops.feed_host``). The tests' double, a recorded log
replayed at a controlled pace, is ``tests/recorded_feed.py``.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Iterable, Protocol, Union

# The feed's connection and GPU items are the remote layer's own types.
from mtptui.remote.follow import ConnectionStatus as Connection  # noqa: F401
from mtptui.remote.gpu import GpuReading, GpuStat  # noqa: F401

if TYPE_CHECKING:
    from mtptui.sglang.flags import FlagSet


@dataclass(frozen=True)
class HostStatus:
    """What is known about the host, its service and the server, beyond the log.

    ``launch`` is the command line that runs (the process's, else /server_info's launch_command, else the profile
    that was started); ``started_at`` is the server process's start in epoch seconds, from /proc (the uptime).
    """

    host: str
    where: str = "this machine"
    service: str = ""
    service_state: str = "unknown"
    version: str | None = None
    started_at: float | None = None
    launch: "FlagSet | None" = None
    launch_source: str = ""
    gpus: tuple[GpuStat, ...] = ()
    gpu_memory_gb: float | None = None


@dataclass(frozen=True)
class LogData:
    """Log bytes in order; ``reset`` marks a new file (truncated or rotated): earlier lines are another run's."""

    data: bytes
    reset: bool = False


FeedItem = Union[LogData, Connection, HostStatus, GpuReading]


class Feed(Protocol):
    """A source of feed items; ``items()`` runs until ``close()`` or the end of the source."""

    label: str

    def items(self) -> AsyncIterator[FeedItem]: ...

    async def close(self) -> None: ...


class FileTailFeed:
    """Follows a local log file from its beginning (or its last ``tail_bytes``), across truncation and rotation."""

    def __init__(self, path: str | os.PathLike[str], *, tail_bytes: int | None = None, poll_s: float = 0.1,
                 block: int = 1 << 20) -> None:
        self.path = Path(path)
        self.label = str(self.path)
        self.tail_bytes = tail_bytes
        self.poll_s = poll_s
        self.block = block
        self._closed = asyncio.Event()

    async def items(self) -> AsyncIterator[FeedItem]:
        handle, inode, first = None, None, True
        yield Connection("connecting", f"waiting for {self.path}")
        try:
            while not self._closed.is_set():
                if handle is None:
                    handle, inode = self._open(first)
                    if handle is None:
                        await self._sleep()
                        continue
                    yield Connection("connected")
                    if not first:
                        yield LogData(b"", reset=True)
                    first = False
                data = handle.read(self.block)
                if data:
                    yield LogData(data)
                    continue
                if self._replaced(handle, inode):
                    handle.close()
                    handle = None
                    continue
                await self._sleep()
        finally:
            if handle is not None:
                handle.close()
        yield Connection("stopped")

    def _open(self, first: bool):
        try:
            handle = open(self.path, "rb")
        except OSError:
            return None, None
        if first and self.tail_bytes is not None:
            _seek_tail(handle, self.tail_bytes)
        return handle, os.fstat(handle.fileno()).st_ino

    def _replaced(self, handle, inode: int | None) -> bool:
        """True when the path now names another file, or the file shrank below what was read."""
        try:
            stat = os.stat(self.path)
        except OSError:
            return False
        return stat.st_ino != inode or stat.st_size < handle.tell()

    async def _sleep(self) -> None:
        try:
            await asyncio.wait_for(self._closed.wait(), self.poll_s)
        except asyncio.TimeoutError:
            pass

    async def close(self) -> None:
        self._closed.set()


def _seek_tail(handle, tail_bytes: int) -> None:
    """Position at the start of the first whole line within the last ``tail_bytes`` of the file."""
    size = os.fstat(handle.fileno()).st_size
    if size <= tail_bytes:
        return
    handle.seek(size - tail_bytes - 1)
    handle.readline()



class FollowerFeed:
    """Adapts a ``mtptui.remote.follow.LogFollower``: LogChunk → LogData, ConnectionStatus → Connection."""

    def __init__(self, follower: Any, label: str) -> None:
        self.follower = follower
        self.label = label

    async def items(self) -> AsyncIterator[FeedItem]:
        async for item in self.follower.events():
            if hasattr(item, "data"):
                yield LogData(item.data, reset=bool(getattr(item, "reset", False)))
            else:
                yield Connection(item.state, item.reason, item.retry_in_s)

    async def close(self) -> None:
        await self.follower.stop()


Source = Callable[[Callable[[FeedItem], Awaitable[None]]], Awaitable[None]]
"""An extra producer for ``merge_feeds``: called with ``emit``, runs until cancelled."""


@dataclass
class MergedFeed:
    """One feed: the items of ``log`` interleaved with those of extra sources (status pollers, load)."""

    log: Feed
    sources: list[Source] = field(default_factory=list)
    on_close: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    queue_size: int = 256

    @property
    def label(self) -> str:
        return self.log.label

    async def items(self) -> AsyncIterator[FeedItem]:
        queue: asyncio.Queue[FeedItem | None] = asyncio.Queue(self.queue_size)
        tasks = [asyncio.create_task(self._pump_log(queue))]
        tasks += [asyncio.create_task(source(queue.put)) for source in self.sources]
        try:
            while (item := await queue.get()) is not None:
                yield item
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _pump_log(self, queue: asyncio.Queue) -> None:
        try:
            async for item in self.log.items():
                await queue.put(item)
        except Exception as exc:  # a broken source ends the feed with a reason, never silently
            await queue.put(Connection("failed", str(exc) or type(exc).__name__))
        await queue.put(None)

    def poke(self) -> None:
        """Ask every source that can to look at the host again now (the status poller after a restart)."""
        for source in self.sources:
            poke = getattr(source, "poke", None)
            if poke is not None:
                poke()

    async def close(self) -> None:
        await self.log.close()
        for hook in self.on_close:
            await hook()


def merge_feeds(log: Feed, *sources: Source, on_close: Iterable[Callable[[], Awaitable[None]]] = ()) -> MergedFeed:
    return MergedFeed(log, list(sources), list(on_close))

