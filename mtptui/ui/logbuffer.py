"""The log view's bounded line store: absolute line numbers, levels, a filter and find, no Textual.

Lines keep an absolute sequence number (``seq``) that survives eviction, so a cursor, a find position or a
paused viewport stays on the same line while older lines fall out of the buffer. With a filter, ``view``
lists the sequence numbers of the matching lines; without one every stored line is visible.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Callable, Iterable, NamedTuple

from mtptui.engines.sglang.logparse.levels import ERROR, INFO, WARNING
from mtptui.engines.sglang.logparse.splitter import cut

__all__ = ["ERROR", "INFO", "MAX_LINE_CHARS", "WARNING", "LineFilter", "LogBuffer", "LogLine"]

MAX_LINE_CHARS = 10_000  # longer lines are cut when stored: one 1 MB line must not defeat the bound
LONG_KEPT = 16  # ... but the last few such lines are kept whole (as the parser passes them on, at most 64 KiB)


class LogLine(NamedTuple):
    """One line for the view: cleaned text, level, and a key shared by refreshes of one progress bar."""

    text: str
    level: int = INFO
    progress: str | None = None


@dataclass(frozen=True)
class LineFilter:
    """Case-insensitive substring filter; ``inverted`` keeps the lines that do not contain it."""

    needle: str
    inverted: bool = False

    @classmethod
    def parse(cls, text: str) -> "LineFilter | None":
        """``foo`` keeps lines with foo, ``!foo`` drops them; empty text means no filter."""
        inverted = text.startswith("!")
        needle = (text[1:] if inverted else text).lower()
        return cls(needle, inverted) if needle else None

    def matches(self, text: str) -> bool:
        return (self.needle in text.lower()) != self.inverted

    def __str__(self) -> str:
        return ("!" if self.inverted else "") + self.needle


def _cut(text: str) -> str:
    """The head of a long line; the count covers what the parser's splitter dropped before."""
    return cut(text, MAX_LINE_CHARS)


class LogBuffer:
    """At most ``maxlen`` lines; visible lines are addressed by index 0..len-1, stored ones by ``seq``."""

    def __init__(self, maxlen: int = 20_000) -> None:
        self.maxlen = maxlen
        self.texts: deque[str] = deque(maxlen=maxlen)
        self.levels: deque[int] = deque(maxlen=maxlen)
        self.first = 0
        self.filter: LineFilter | None = None
        self.hide: Callable[[str], bool] | None = None  # lines hidden whatever the filter (mtptui's own polls)
        self.view: list[int] | None = None
        self.max_chars = 0
        self._progress: str | None = None
        self.long: OrderedDict[int, str] = OrderedDict()  # seq → whole text of the last LONG_KEPT long lines

    @property
    def total(self) -> int:
        """Sequence number the next line will get (= lines ever appended, refreshes excluded)."""
        return self.first + len(self.texts)

    def __len__(self) -> int:
        return len(self.view) if self.view is not None else len(self.texts)

    def text(self, seq: int) -> str:
        return self.texts[seq - self.first]

    def full_text(self, seq: int) -> str:
        """The whole line, where the store cut it (the server_args line is ~11,000 characters) and still has it."""
        return self.long.get(seq) or self.text(seq)

    def level(self, seq: int) -> int:
        return self.levels[seq - self.first]

    def seq_at(self, index: int) -> int:
        """Sequence number of the visible line at ``index``."""
        return self.view[index] if self.view is not None else self.first + index

    def index_of(self, seq: int) -> int:
        """Index of the first visible line at or after ``seq`` (len when there is none)."""
        if self.view is not None:
            return bisect_left(self.view, seq)
        return min(max(seq - self.first, 0), len(self.texts))

    def append(self, lines: Iterable[LogLine]) -> tuple[int, int]:
        """Store lines; returns (visible lines added, visible lines evicted from the front)."""
        added = 0
        first_before = self.first
        for line in lines:
            text = line.text if len(line.text) <= MAX_LINE_CHARS else _cut(line.text)
            if line.progress is not None and line.progress == self._progress and self.texts:
                self._replace_last(text, line.level)
                continue
            self._progress = line.progress
            if len(self.texts) == self.maxlen:
                self.first += 1
            if text is not line.text:
                self._keep_long(self.total, line.text)
            self.texts.append(text)
            self.levels.append(line.level)
            self.max_chars = max(self.max_chars, len(text))
            if self.view is None or self.shows(text):
                if self.view is not None:
                    self.view.append(self.total - 1)
                added += 1
        return added, self._evicted(first_before)

    def _keep_long(self, seq: int, text: str) -> None:
        self.long[seq] = text
        while len(self.long) > LONG_KEPT:
            self.long.popitem(last=False)

    def _evicted(self, first_before: int) -> int:
        if self.view is None:
            return self.first - first_before
        cut = bisect_left(self.view, self.first)
        if cut:
            del self.view[:cut]
        return cut

    def _replace_last(self, text: str, level: int) -> None:
        """A progress bar refreshed itself: the last line changes in place."""
        seq = self.total - 1
        was = self.view is None or bool(self.view) and self.view[-1] == seq
        self.texts[-1], self.levels[-1] = text, level
        self.max_chars = max(self.max_chars, len(text))
        if self.view is not None:
            now = self.shows(text)
            if was and not now:
                self.view.pop()
            elif now and not was:
                self.view.append(seq)

    def shows(self, text: str) -> bool:
        return (self.filter is None or self.filter.matches(text)) and not (self.hide is not None and self.hide(text))

    def set_filter(self, line_filter: LineFilter | None) -> None:
        self.filter = line_filter
        self._select()

    def set_hide(self, hide: Callable[[str], bool] | None) -> None:
        self.hide = hide
        self._select()

    def _select(self) -> None:
        if self.filter is None and self.hide is None:
            self.view = None
            return
        first, shows = self.first, self.shows
        self.view = [first + i for i, text in enumerate(self.texts) if shows(text)]

    def find(self, needle: str, start: int, forward: bool = True) -> int | None:
        """Index of the next visible line (after ``start``, or before it) containing ``needle``, wrapping."""
        count = len(self)
        if not needle or not count:
            return None
        needle = needle.lower()
        step = 1 if forward else -1
        for offset in range(1, count + 1):
            index = (start + step * offset) % count
            if needle in self.text(self.seq_at(index)).lower():
                return index
        return None

    def match_number(self, needle: str, index: int) -> int | None:
        """1-based number of the visible line at ``index`` among the lines containing ``needle``; None when it
        does not contain it."""
        needle = needle.lower()
        if not needle or not 0 <= index < len(self) or needle not in self.text(self.seq_at(index)).lower():
            return None
        return 1 + sum(needle in self.text(self.seq_at(i)).lower() for i in range(index))

    def count_matches(self, needle: str) -> int:
        """Visible lines containing ``needle`` (case-insensitive)."""
        if not needle:
            return 0
        needle = needle.lower()
        return sum(needle in self.text(self.seq_at(i)).lower() for i in range(len(self)))
