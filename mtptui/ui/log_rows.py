"""The log view's text and row arithmetic, without Textual: how a line is shown, and which row holds which line.

Unwrapped, visible line i is row i. Wrapped at a width, a line takes as many rows as its shown text needs, so
``WrapRows`` keeps the first row of every visible line and finds the line under a row by bisection.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Iterable, Iterator

MAX_DISPLAY = 1000


def display_text(text: str) -> str:
    """The text as shown: lines over MAX_DISPLAY characters end in an ellipsis and the count left out."""
    if len(text) <= MAX_DISPLAY:
        return text
    return f"{text[:MAX_DISPLAY]} … [+{len(text) - MAX_DISPLAY:,} chars]"


def prefix_end(text: str) -> int:
    """Length of an SGLang ``[date time ranks] `` prefix at the start of the line (0 when there is none)."""
    if text[:1] != "[":
        return 0
    end = text.find("] ", 0, 48)
    return end + 2 if end > 0 else 0


def rows_of(text: str, width: int) -> int:
    """Rows the shown text takes when wrapped at ``width`` (an empty line still takes one)."""
    length = len(display_text(text))
    return (length - 1) // width + 1 if length else 1


def matches(haystack: str, needle: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each non-overlapping occurrence of ``needle``; none for an empty needle."""
    start = haystack.find(needle)
    while start >= 0 and needle:
        yield start, start + len(needle)
        start = haystack.find(needle, start + len(needle))


class WrapRows:
    """Wrapped rows at one width: ``starts[i]`` is the first row of visible line i, ``starts[-1]`` the row count."""

    def __init__(self, texts: Iterable[str], width: int) -> None:
        self.width = width
        self.starts = list(accumulate((rows_of(text, width) for text in texts), initial=0))

    @property
    def total(self) -> int:
        return self.starts[-1]

    def append(self, text: str) -> None:
        self.starts.append(self.starts[-1] + rows_of(text, self.width))

    def locate(self, row: int) -> tuple[int, int] | None:
        """(line index, row within the line) at ``row`` >= 0, None past the end."""
        if row >= self.total:
            return None
        index = bisect_right(self.starts, row) - 1
        return index, row - self.starts[index]
