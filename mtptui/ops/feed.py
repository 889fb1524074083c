"""What the dashboard consumes, free of Textual: log bytes, the connection's state, and the host's status.

A feed is an async iterator of items (``LogData``, ``Connection``, ``HostStatus``, ``GpuReading``: the live GPU
poll of ``mtptui.ops.gpu_poll``, ``ServerMetrics``: the /metrics scrape of ``mtptui.ops.metrics_feed``) plus
``close()``:

    async for item in feed.items():
        ...

Implementations here: ``FollowerFeed`` (adapts ``mtptui.remote.follow.LogFollower``, which follows every host's
log, the demo's included) and ``merge_feeds`` (one feed from a log feed plus extra sources, e.g. the status
poller of ``mtptui.ops.feed_host``). The tests' double, a recorded log
replayed at a controlled pace, is ``tests/recorded_feed.py``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Protocol, Union

from mtptui.ops.metrics_feed import ServerMetrics

# The feed's connection and GPU items are the remote layer's own types.
from mtptui.remote.follow import ConnectionStatus as Connection  # noqa: F401
from mtptui.remote.gpu import GpuReading, GpuStat  # noqa: F401
from mtptui.remote.logsource import LogChunk

if TYPE_CHECKING:
    from mtptui.remote.follow import LogFollower
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


FeedItem = Union[LogData, Connection, HostStatus, GpuReading, ServerMetrics]


class Feed(Protocol):
    """A source of feed items; ``items()`` runs until ``close()`` or the end of the source."""

    @property
    def label(self) -> str: ...

    def items(self) -> AsyncIterator[FeedItem]: ...

    async def close(self) -> None: ...


class FollowerFeed:
    """Adapts a ``mtptui.remote.follow.LogFollower``: LogChunk → LogData, ConnectionStatus → Connection."""

    def __init__(self, follower: LogFollower, label: str) -> None:
        self.follower = follower
        self.label = label

    async def items(self) -> AsyncIterator[FeedItem]:
        async for item in self.follower.events():
            if isinstance(item, LogChunk):
                yield LogData(item.data, reset=item.reset)
            else:
                yield Connection(item.state, item.reason, item.retry_in_s)

    async def close(self) -> None:
        await self.follower.stop()


Source = Callable[[Callable[[FeedItem], Awaitable[None]]], Coroutine[Any, Any, None]]
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

    async def _pump_log(self, queue: asyncio.Queue[FeedItem | None]) -> None:
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

