"""The body of the dashboard's feed worker: read the feed, parse the log, post batched messages.

Nothing here touches a widget. Log lines and their events are gathered and posted as one ``LogBatch`` at most
every ``interval_s`` (and at once when the feed goes quiet). The pump reads the feed itself (the merged feed's
queue is the only one): while the screen has not shown the last batch (it sets ``shown`` when it has), the pump
waits, which holds back the feed and through its bounded queue the follower. An error whose traceback is still
open is released once no line came for ``quiet_s`` on ``clock`` (``QuietRelease``), so the problems pane never
waits for a closing line that a crashed server will not write.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import aclosing
from typing import AsyncGenerator, AsyncIterator, Callable

from textual.message import Message

from mtptui.engines.registry import DashboardParser as Parser
from mtptui.ops.feed.items import Connection, Feed, FeedItem, GatewayReading, GpuReading, HostStatus, LogChunk, Reread
from mtptui.engines.sglang.logparse import QUIET_S, Event, LogParser, QuietRelease
from mtptui.engines.sglang.logparse.prefix import strip_ansi
from mtptui.text import visible
from mtptui.ops.metrics_feed import ServerMetrics
from mtptui.engines.sglang.logparse.levels import line_level
from mtptui.ui.logbuffer import WARNING, LogLine
from mtptui.ui.messages import (ConnectionChanged, FeedEnded, GatewayRead, GpusRead, HostChanged, LogBatch,
                                LogReread, MetricsChanged)

PROGRESS_KINDS = frozenset({"shard_progress", "graph_capture_progress"})
RESET_LINE = "──── the log file was replaced (truncated or rotated); following the new one ────"


def clean(text: str) -> str:
    """Printable text: ANSI codes removed, tabs expanded, other controls (C0, C1, bidi) shown escaped (``visible``)."""
    text = strip_ansi(text)
    if text.isprintable():  # nearly every line: one C-level scan, no regex
        return text
    if "\t" in text:
        text = text.expandtabs()
    return visible(text)


def progress_key(events: list[Event]) -> str | None:
    """Refreshes of one tqdm bar share a key, so the view shows the bar's latest state on one line."""
    for event in events:
        if event.kind in PROGRESS_KINDS:
            return f"{event.kind}:{event.fields.get('desc') or ''}:{event.ranks}"
    return None


class LineParser:
    """Feeds log bytes to the parser line by line, keeping each line with its level."""

    def __init__(self, new_parser: Callable[[], Parser] = LogParser) -> None:
        self.parser = new_parser()

    def feed(self, data: bytes, lines: list[LogLine], events: list[Event]) -> None:
        parser = self.parser
        for raw, new in parser.feed_lines(data):
            events += new
            text = clean(raw)
            lines.append(LogLine(text, line_level(text, new, parser.in_error), progress_key(new)))

    def flush(self, events: list[Event]) -> None:
        """Release a held-back error (its traceback ends when the stream goes quiet)."""
        self.parser.flush_pending(events)


class FeedPump:
    """Runs until the feed ends; ``post`` delivers messages. With ``shown`` (an event the screen sets when it has
    shown a batch) at most one ``LogBatch`` waits to be handled; without it the pump never waits (tests)."""

    def __init__(self, feed: Feed, post: Callable[[Message], object], shown: asyncio.Event | None = None,
                 *, interval_s: float = 0.1, max_lines: int = 20_000, quiet_s: float = QUIET_S,
                 clock: Callable[[], float] = time.monotonic, new_parser: Callable[[], Parser] = LogParser) -> None:
        self.feed, self.post, self.shown = feed, post, shown
        self.interval_s, self.max_lines = interval_s, max_lines
        self.quiet, self.clock, self.new_parser = QuietRelease(quiet_s), clock, new_parser
        self.lines_parser = LineParser(new_parser)
        self.lines: list[LogLine] = []
        self.events: list[Event] = []
        if shown is not None:
            shown.set()  # nothing posted yet

    async def run(self) -> None:
        items = self.feed.items()
        due = None
        try:
            async with aclosing(self._timed(items, lambda: due)) as timed:
                async for item in timed:
                    if item is None:
                        due = await self._on_timeout(due)
                        continue
                    if not isinstance(item, LogChunk):
                        await self.flush()
                        due = None
                    if self.take(item) and due is None:
                        due = self.clock() + self.interval_s
        finally:  # the wait for the next item has ended (aclosing) before the feed is closed
            await _close(items)
        await self.flush(quiet=True)
        self.post(FeedEnded())

    async def _timed(self, items: AsyncIterator[FeedItem],
                     due: Callable[[], float | None]) -> AsyncGenerator[FeedItem | None, None]:
        """The feed's items, and None whenever a batch or a held-back error is due before the next item comes.

        The wait for the next item outlives a timeout (never cancelled mid-item); a broken feed ends in a
        ``failed`` connection, never in a worker killed silently.
        """
        ahead: asyncio.Future[FeedItem] | None = None
        try:
            while True:
                timeout = self._timeout(due(), self.clock())
                if timeout == 0.0:  # due now, even when the next item is ready (a feed faster than the screen)
                    yield None
                    continue
                if ahead is None:
                    ahead = asyncio.ensure_future(items.__anext__())
                done, _ = await asyncio.wait({ahead}, timeout=timeout)
                if not done:
                    yield None
                    continue
                try:
                    item = ahead.result()
                except StopAsyncIteration:
                    return
                except Exception as exc:
                    yield Connection("failed", str(exc) or type(exc).__name__)
                    return
                ahead = None
                yield item
        finally:
            if ahead is not None and not ahead.done():
                ahead.cancel()
                await asyncio.gather(ahead, return_exceptions=True)

    def _timeout(self, due: float | None, now: float) -> float | None:
        """Until the batch is due or a held-back error is, whichever comes first; None when nothing waits."""
        waits = [] if due is None else [max(due - now, 0.0)]
        release = self.quiet.wait_s(self.lines_parser.parser, now)
        if release is not None:
            waits.append(release)
        return min(waits) if waits else None

    async def _on_timeout(self, due: float | None) -> float | None:
        """Release an error whose stream went quiet; post the batch when it is due (or holds that error)."""
        now, held = self.clock(), len(self.events)
        released = len(self.quiet.release(self.lines_parser.parser, now, self.events)) > held
        if released or due is None or now >= due - 1e-3:
            await self.flush()
            return None
        return due

    def take(self, item: object) -> bool:
        """Handle one feed item; True when it added log lines (a batch is then due)."""
        if isinstance(item, Reread):
            self.lines_parser = LineParser(self.new_parser)  # what was gathered was flushed before this item (run)
            self.post(LogReread(item.since))
            self.lines.append(LogLine(f"──── the log again, from {item.since} ────", WARNING))
            return True
        if isinstance(item, LogChunk):
            if item.reset:
                self.lines_parser.flush(self.events)
                self.lines_parser = LineParser(self.new_parser)
                self.lines.append(LogLine(RESET_LINE, WARNING))
            if item.gap is not None:  # not a line of the server's: the hole in its log, shown as one
                self.lines.append(LogLine(f"──── {visible(item.data.decode(errors='replace').strip())} ────", WARNING))
            else:
                self.lines_parser.feed(item.data, self.lines, self.events)
            self.quiet.fed(self.clock())
            return True
        if isinstance(item, Connection):
            self.post(ConnectionChanged(item))
        elif isinstance(item, HostStatus):
            self.post(HostChanged(item))
        elif isinstance(item, GpuReading):
            self.post(GpusRead(item))
        elif isinstance(item, GatewayReading):
            self.post(GatewayRead(item))
        elif isinstance(item, ServerMetrics):
            self.post(MetricsChanged(item))
        return False

    async def flush(self, quiet: bool = False) -> None:
        """Post what was gathered, once the screen has shown the last batch; ``quiet`` also releases a held-back
        error."""
        if quiet:
            self.lines_parser.flush(self.events)
        if not self.lines and not self.events:
            return
        if self.shown is not None:
            await self.shown.wait()
            self.shown.clear()
        lines, dropped = self.lines, 0
        if len(lines) > self.max_lines:
            dropped = len(lines) - self.max_lines
            lines = lines[dropped:]
        self.post(LogBatch(lines, self.events, dropped, holding=self.lines_parser.parser.holding))
        self.lines, self.events = [], []


async def _close(items: AsyncIterator[FeedItem]) -> None:
    """End the feed's iterator (a merged feed then stops its sources)."""
    aclose = getattr(items, "aclose", None)
    if aclose is not None:
        await aclose()
