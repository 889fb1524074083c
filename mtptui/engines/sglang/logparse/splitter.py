"""Incremental line splitting: bytes or text in arbitrary chunks → complete lines.

A chunk may end mid-line or mid-UTF-8 character; `\\r`, `\\n` and `\\r\\n` each end one line (tqdm bars rewrite
themselves with `\\r`). Invalid UTF-8 becomes U+FFFD instead of an exception. A line longer than
MAX_LINE_CHARS keeps only its head, followed by a note of how many characters were dropped, so one 200 MB
line costs a bounded amount of memory however it arrives.
"""

from __future__ import annotations

import codecs
import re
from itertools import islice

MAX_LINE_CHARS = 1 << 16  # SGLang's longest lines (server_args) are about 10,000 characters
_NOTE = " … [{:,} more chars not kept]"
_NOTED = re.compile(r" … \[([\d,]+) more chars not kept\]\Z")


def cut(text: str, keep: int) -> str:
    """The first ``keep`` characters of ``text`` and a note of how many of the original line are not kept.

    A line that was cut before (it ends with the note) counts what was dropped then as well.
    """
    noted = _NOTED.search(text, max(0, len(text) - 60))
    body, dropped = (text[:noted.start()], int(noted.group(1).replace(",", ""))) if noted else (text, 0)
    if len(body) <= keep:
        return text
    return body[:keep] + _NOTE.format(len(body) - keep + dropped)


class LineSplitter:
    """Turns chunks into complete lines; keeps only the unfinished tail (at most ``max_line`` characters)."""

    def __init__(self, max_line: int = MAX_LINE_CHARS) -> None:
        self.max_line = max_line
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail: list[str] = []
        self._kept = 0
        self._dropped = 0
        self._skip_lf = False

    def split(self, data: bytes | str) -> list[str]:
        """The lines completed by this chunk, without their terminators."""
        text = self._decoder.decode(data) if isinstance(data, (bytes, bytearray, memoryview)) else data
        if not text:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
        if "\r" in text:
            text = text.replace("\r\n", "\n")
            self._skip_lf = text.endswith("\r")
            text = text.replace("\r", "\n")
        if "\n" not in text:
            self._hold(text)
            return []
        lines = text.split("\n")
        last = lines.pop()
        if self._tail or len(lines[0]) > self.max_line:
            self._hold(lines[0])
            lines[0] = self._take()
        if len(text) > self.max_line and max(map(len, islice(lines, 1, None)), default=0) > self.max_line:
            lines[1:] = [cut(line, self.max_line) for line in islice(lines, 1, None)]
        if last:
            self._hold(last)
        return lines

    def _hold(self, piece: str) -> None:
        """Keep what fits of an unfinished line, count the rest."""
        room = self.max_line - self._kept
        if len(piece) > room:
            self._dropped += len(piece) - room
            piece = piece[:room]
        if piece:
            self._tail.append(piece)
            self._kept += len(piece)

    def _take(self) -> str:
        line = "".join(self._tail)
        if self._dropped:
            line += _NOTE.format(self._dropped)
        self._tail.clear()
        self._kept = self._dropped = 0
        return line

    def close(self) -> list[str]:
        """The unterminated last line, if any (and whatever the decoder still held)."""
        rest = self._decoder.decode(b"", final=True)
        if rest:
            self.split(rest)
        tail = self._take()
        return [tail] if tail else []
