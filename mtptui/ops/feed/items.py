"""What the dashboard consumes, free of Textual: log bytes, the connection's state, and the host's status.

A feed is an async iterator of items (``LogChunk`` and ``Connection``: the follower's own, unchanged; ``Reread``:
the log is read again from a time; ``HostStatus``, ``GpuReading``: the live GPU
poll of ``mtptui.ops.gpu_poll``, ``ServerMetrics``: the /metrics scrape of ``mtptui.ops.metrics_feed``,
``GatewayReading``: the gateway's workers, ``mtptui.ops.gateway_poll``) plus
``close()``:

    async for item in feed.items():
        ...

Implementations here: ``FollowerFeed`` (passes on what ``mtptui.remote.follow.LogFollower`` yields, which
follows every host's log, the demo's included) and ``merge_feeds`` (one feed from a log feed plus extra sources,
e.g. the status poller of ``mtptui.ops.feed.host``). The tests' double, a recorded log replayed at a controlled
pace, is ``tests/recorded_feed.py``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Protocol, Union

from mtptui.ops.gateway_poll import GatewayReading
from mtptui.ops.metrics_feed import ServerMetrics

# The feed's connection and GPU items are the remote layer's own types (re-exported: see __all__).
from mtptui.remote.follow import ConnectionStatus as Connection
from mtptui.remote.gpu import GpuReading, GpuStat
from mtptui.errors import UserError
from mtptui.remote.logsource import LogChunk, Start
from mtptui.remote.service_state import ServicePhase

__all__ = ["Connection", "Feed", "FeedItem", "FollowerFeed", "GatewayReading", "GpuReading", "GpuStat", "HostStatus",
           "LogChunk", "MergedFeed", "Reread", "ServerMetrics", "Source", "merge_feeds"]

if TYPE_CHECKING:
    from mtptui.ops.drift import LaunchFiles
    from mtptui.remote.follow import LogFollower
    from mtptui.engines.sglang.flags import FlagSet
    from mtptui.speculation import LiveSpeculation


@dataclass(frozen=True)
class HostStatus:
    """What is known about the host, its service and the server, beyond the log.

    ``launch`` is the command line that runs (the process's, else /server_info's launch_command, else the profile
    that was started); ``started_at`` is the server process's start in epoch seconds, from /proc (the uptime);
    ``speculation`` the configured and live speculation the server's API reports (mtptui.engines.sglang.live).
    ``service_state`` is the manager's own words for its service, ``service_phase`` the same in the one
    vocabulary every manager shares (mtptui.remote.service.ServicePhase). ``launch_files``: that launch and the
    known-good profile with the files they read at start (vLLM's `--config`), read on the host, or why one cannot
    be (mtptui.ops.drift.LaunchFiles; None when neither reads a file). The GPUs are not here: the one
    nvidia-smi poll (``GpuReading``) feeds every pane that shows them.
    """

    host: str
    where: str = "this machine"
    service: str = ""
    service_state: str = "unknown"
    service_phase: ServicePhase = "unknown"
    version: str | None = None
    started_at: float | None = None
    launch: "FlagSet | None" = None
    launch_source: str = ""
    gpu_memory_gb: float | None = None
    speculation: "LiveSpeculation | None" = None
    launch_files: "LaunchFiles | None" = None


@dataclass(frozen=True)
class Reread:
    """The log is read again from ``since`` (the journal since a time): the lines before this item are replaced.

    Log bytes themselves are the follower's ``LogChunk``: ``reset`` there marks a new file (truncated or
    rotated), ``gap`` lines journald dropped (``data`` says so in words).
    """

    since: str


FeedItem = Union[LogChunk, Reread, Connection, HostStatus, GpuReading, ServerMetrics, GatewayReading]


class Feed(Protocol):
    """A source of feed items; ``items()`` runs until ``close()`` or the end of the source."""

    @property
    def label(self) -> str: ...

    def items(self) -> AsyncIterator[FeedItem]: ...

    async def close(self) -> None: ...


class FollowerFeed:
    """A ``mtptui.remote.follow.LogFollower`` as a feed: its chunks and statuses, as they are.

    With ``make`` (a new follower from a ``Start``) and a source that has times, ``reread(start, name)`` reads the
    log again from ``start`` (the journal since a time): the next item is a ``Reread`` that says so.
    """

    def __init__(self, follower: LogFollower, label: str,
                 make: Callable[[Start], LogFollower] | None = None) -> None:
        self.follower = follower
        self.label = label
        self.make = make
        self._again: tuple[Start, str] | None = None
        self._closed = False

    @property
    def rereads(self) -> bool:
        """Whether the log can be read again from a time (a journal can; a file is read by bytes)."""
        return self.make is not None and bool(getattr(self.follower.source, "has_times", False))

    async def items(self) -> AsyncIterator[FeedItem]:
        while True:
            async for item in self.follower.events():
                if isinstance(item, LogChunk) or not (self._again is not None and item.state == "stopped"):
                    yield item  # a follower stopped to be read again is not a stopped connection
            if self._again is None or self._closed or self.make is None:
                return
            (start, name), self._again = self._again, None
            self.follower = self.make(start)
            yield Reread(name)

    def reconnect(self) -> None:
        """Try the host again now (a follower waiting out its backoff connects at once)."""
        self.follower.retry_now()

    async def reread(self, start: Start, name: str) -> None:
        """Follow the log again from ``start`` (``name``: how the log pane says where it starts)."""
        if not self.rereads:
            raise UserError(f"{self.label} is read by bytes, not by time: it is followed from its last lines")
        self._again = (start, name)
        await self.follower.stop()

    async def close(self) -> None:
        self._closed = True
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

    @property
    def rereads(self) -> bool:
        return bool(getattr(self.log, "rereads", False))

    async def reread(self, start: Start, name: str) -> None:
        """Read the log again from ``start`` (see ``FollowerFeed.reread``)."""
        reread = getattr(self.log, "reread", None)
        if reread is None:
            raise UserError(f"{self.label} cannot be read again from a time")
        await reread(start, name)

    def reconnect(self) -> None:
        """Try the host again now: the log's follower at once, and every source that can look again."""
        reconnect = getattr(self.log, "reconnect", None)
        if reconnect is not None:
            reconnect()
        self.poke()

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

