"""The body of the dashboard's feed worker: read the feed, parse the log, post batched messages.

Nothing here touches a widget. Log lines and their events are gathered and posted as one ``LogBatch`` at most
every ``interval_s`` (and at once when the feed goes quiet); when the receiver's message queue backs up, the
pump waits, which in turn holds back the feed reader (its queue is bounded). An error whose traceback is still
open is released once no line came for ``quiet_s`` on ``clock`` (``QuietRelease``), so the problems pane never
waits for a closing line that a crashed server will not write.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

from textual.message import Message

from mtptui.ops.feed import Connection, Feed, GpuReading, HostStatus, LogData
from mtptui.sglang.logparse import QUIET_S, Event, LogParser, QuietRelease
from mtptui.sglang.logparse.prefix import strip_ansi
from mtptui.text import visible
from mtptui.ops.metrics_feed import ServerMetrics
from mtptui.sglang.logparse.levels import line_level
from mtptui.ui.logbuffer import WARNING, LogLine
from mtptui.ui.messages import ConnectionChanged, FeedEnded, GpusRead, HostChanged, LogBatch, MetricsChanged

PROGRESS_KINDS = frozenset({"shard_progress", "graph_capture_progress"})
RESET_LINE = "──── the log file was replaced (truncated or rotated); following the new one ────"
_END = object()


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

    def __init__(self) -> None:
        self.parser = LogParser()

    def feed(self, data: bytes, lines: list[LogLine], events: list[Event]) -> None:
        parser = self.parser
        for raw in parser.splitter.split(data):
            start = len(events)
            parser.parse_line(raw, events)
            new = events[start:]
            text = clean(raw)
            lines.append(LogLine(text, line_level(text, new, parser.pending is not None), progress_key(new)))

    def flush(self, events: list[Event]) -> None:
        """Release a held-back error (its traceback ends when the stream goes quiet)."""
        self.parser.flush_pending(events)


class FeedPump:
    """Runs until the feed ends; ``post`` delivers messages, ``backlog`` tells how many wait to be handled."""

    def __init__(self, feed: Feed, post: Callable[[Message], object], backlog: Callable[[], int] = lambda: 0,
                 *, interval_s: float = 0.1, max_lines: int = 20_000, max_backlog: int = 8,
                 quiet_s: float = QUIET_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.feed, self.post, self.backlog = feed, post, backlog
        self.interval_s, self.max_lines, self.max_backlog = interval_s, max_lines, max_backlog
        self.quiet, self.clock = QuietRelease(quiet_s), clock
        self.lines_parser = LineParser()
        self.lines: list[LogLine] = []
        self.events: list[Event] = []

    async def run(self) -> None:
        queue: asyncio.Queue = asyncio.Queue(maxsize=64)
        reader = asyncio.create_task(self._read(queue))
        due = None
        try:
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), self._timeout(due, self.clock()))
                except asyncio.TimeoutError:
                    due = await self._on_timeout(due)
                    continue
                if item is _END:
                    break
                if not isinstance(item, LogData):
                    await self.flush()
                    due = None
                if self.take(item) and due is None:
                    due = self.clock() + self.interval_s
        finally:
            reader.cancel()
        await self.flush(quiet=True)
        self.post(FeedEnded())

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

    async def _read(self, queue: asyncio.Queue) -> None:
        try:
            async for item in self.feed.items():
                await queue.put(item)
        except Exception as exc:  # a broken feed is reported, never left to kill the worker silently
            await queue.put(Connection("failed", str(exc) or type(exc).__name__))
        await queue.put(_END)

    def take(self, item: object) -> bool:
        """Handle one feed item; True when it added log lines (a batch is then due)."""
        if isinstance(item, LogData):
            if item.reset:
                self.lines_parser.flush(self.events)
                self.lines_parser = LineParser()
                self.lines.append(LogLine(RESET_LINE, WARNING))
            self.lines_parser.feed(item.data, self.lines, self.events)
            self.quiet.fed(self.clock())
            return True
        if isinstance(item, Connection):
            self.post(ConnectionChanged(item))
        elif isinstance(item, HostStatus):
            self.post(HostChanged(item))
        elif isinstance(item, GpuReading):
            self.post(GpusRead(item))
        elif isinstance(item, ServerMetrics):
            self.post(MetricsChanged(item))
        return False

    async def flush(self, quiet: bool = False) -> None:
        """Post what was gathered; ``quiet`` also releases a held-back error."""
        if quiet:
            self.lines_parser.flush(self.events)
        if not self.lines and not self.events:
            return
        while self.backlog() > self.max_backlog:
            await asyncio.sleep(0.02)
        lines, dropped = self.lines, 0
        if len(lines) > self.max_lines:
            dropped = len(lines) - self.max_lines
            lines = lines[dropped:]
        self.post(LogBatch(lines, self.events, dropped, holding=self.lines_parser.parser.pending is not None))
        self.lines, self.events = [], []
