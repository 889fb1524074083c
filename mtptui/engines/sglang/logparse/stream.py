"""The incremental parser: chunks in, events out as soon as their line is complete.

An `error` line is held back until the next line that is not part of its traceback (unprefixed lines that match
no kind are folded into it), so it may come out one line late; `close()` and `flush_pending()` release it, e.g.
when the input ends or a live stream goes quiet (`mtptui.engines.sglang.logparse.quiet`), with `truncated` set when its
traceback had not reached its exception line yet.
"""

from __future__ import annotations

from typing import Iterator

from mtptui.engines.sglang.logparse.events import Event
from mtptui.engines.sglang.logparse.lines import classify
from mtptui.engines.sglang.logparse.prefix import split_line
from mtptui.engines.sglang.logparse.problems import bare_error, prefixed_traceback
from mtptui.engines.sglang.logparse.splitter import LineSplitter
from mtptui.engines.sglang.logparse.tracebacks import MAX_TRACEBACK_LINES, PendingError

__all__ = ["LogParser", "MAX_TRACEBACK_LINES", "parse_text"]


class LogParser:
    """Parse SGLang log text fed in arbitrary chunks.

    `feed`/`close` return events; `feed_lines`/`close_lines` give (raw line, events completed by it) pairs for
    a log pane that shows raw lines beside the parsed state. `feed_lines` parses as it is iterated, so `holding`
    read after a pair says whether that line is part of an error held back for its traceback.
    """

    def __init__(self) -> None:
        self.splitter = LineSplitter()
        self.line_no = 0
        self._pending: PendingError | None = None

    @property
    def pending(self) -> Event | None:
        """The error held back for its traceback, if any."""
        return self._pending.event if self._pending is not None else None

    @property
    def holding(self) -> bool:
        """Whether an error is held back, waiting for the rest of its traceback."""
        return self._pending is not None

    @property
    def in_error(self) -> bool:
        """Whether the line just parsed belongs to an error held back (SGLang holds back nothing else)."""
        return self._pending is not None

    def feed(self, data: bytes | str) -> list[Event]:
        out: list[Event] = []
        for text in self.splitter.split(data):
            self.parse_line(text, out)
        return out

    def close(self) -> list[Event]:
        """Flush the last unterminated line and any pending error."""
        out: list[Event] = []
        for text in self.splitter.close():
            self.parse_line(text, out)
        self.flush_pending(out)
        return out

    def feed_lines(self, data: bytes | str) -> Iterator[tuple[str, list[Event]]]:
        """Each complete line of `data` with the events it completes, parsed when its pair is taken."""
        for text in self.splitter.split(data):
            yield text, self.parse_line(text, [])

    def close_lines(self) -> list[tuple[str, list[Event]]]:
        pairs = [(text, self.parse_line(text, [])) for text in self.splitter.close()]
        tail = self.flush_pending([])
        if tail:
            pairs.append(("", tail))
        return pairs

    def parse_line(self, text: str, out: list[Event]) -> list[Event]:
        """Parse one complete line (no terminator), appending the events it completes to `out`."""
        self.line_no += 1
        split = split_line(text)
        parsed = classify(split.msg)
        if self._pending is not None:
            if parsed is None and not split.prefixed:
                self._pending.fold(split.msg)
                return out
            self.flush_pending(out)
        if parsed is None:
            parsed = prefixed_traceback(split.msg) if split.prefixed else bare_error(split.msg)
        if parsed is not None:
            kind, fields = parsed
            event = Event(kind, split.ts, split.ranks, self.line_no, fields)
            if kind == "error":
                self._pending = PendingError(event)
            else:
                out.append(event)
        return out

    def flush_pending(self, out: list[Event]) -> list[Event]:
        """Emit the held-back error with the traceback folded so far (e.g. when a live stream goes quiet)."""
        if self._pending is not None:
            out.append(self._pending.release())
            self._pending = None
        return out


def parse_text(text: str | bytes) -> list[Event]:
    """All events of a complete text."""
    parser = LogParser()
    return parser.feed(text) + parser.close()
