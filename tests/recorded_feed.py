"""The tests' feed: a recorded log replayed at a controlled pace (a stand-in for a live server)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import AsyncIterator, Iterable

from mtptui.ops.feed.items import Connection, FeedItem, HostStatus, LogChunk


class RecordedFeed:
    """Replays recorded log text at a controlled pace (a stand-in for a live server in tests and snapshots).

    Args:
        source: a log file, the log text, or a list of lines (without terminators).
        lines_per_chunk: lines per LogChunk; None sends everything as one chunk.
        interval_s: pause between chunks.
        status: HostStatus sent after the first Connection.
        hold: after the last chunk, stay connected until ``close()`` (a quiet live server) instead of stopping.
        extra: feed items sent after the status (a GPU reading, a /metrics scrape).
    """

    def __init__(self, source: str | os.PathLike[str] | Iterable[str], *, lines_per_chunk: int | None = None,
                 interval_s: float = 0.0, status: HostStatus | None = None, hold: bool = True,
                 label: str = "recorded log", extra: Iterable[FeedItem] = ()) -> None:
        self.lines = _source_lines(source)
        self.lines_per_chunk = lines_per_chunk
        self.interval_s = interval_s
        self.status = status
        self.hold = hold
        self.label = label
        self.extra = list(extra)
        self.drained = asyncio.Event()
        self._closed = asyncio.Event()

    def chunks(self) -> list[bytes]:
        step = self.lines_per_chunk or max(len(self.lines), 1)
        return ["".join(f"{line}\n" for line in self.lines[i:i + step]).encode()
                for i in range(0, len(self.lines), step)]

    async def items(self) -> AsyncIterator[FeedItem]:
        yield Connection("connected")
        if self.status is not None:
            yield self.status
        for item in self.extra:
            yield item
        for chunk in self.chunks():
            if self._closed.is_set():
                break
            yield LogChunk(chunk)
            await (asyncio.sleep(self.interval_s) if self.interval_s else asyncio.sleep(0))
        self.drained.set()
        if self.hold:
            await self._closed.wait()
        yield Connection("stopped")

    async def close(self) -> None:
        self._closed.set()


def _source_lines(source: str | os.PathLike[str] | Iterable[str]) -> list[str]:
    if isinstance(source, os.PathLike):
        return Path(source).read_text(encoding="utf-8", errors="replace").splitlines()
    if isinstance(source, str):
        return source.splitlines()
    return list(source)
