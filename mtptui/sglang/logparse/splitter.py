"""Incremental line splitting: bytes or text in arbitrary chunks → complete lines.

A chunk may end mid-line or mid-UTF-8 character; `\\r`, `\\n` and `\\r\\n` each end one line (tqdm bars rewrite
themselves with `\\r`). Invalid UTF-8 becomes U+FFFD instead of an exception.
"""

from __future__ import annotations

import codecs


class LineSplitter:
    """Turns chunks into complete lines; keeps only the unfinished tail between calls."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail: list[str] = []
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
            self._tail.append(text)
            return []
        lines = text.split("\n")
        if self._tail:
            self._tail.append(lines[0])
            lines[0] = "".join(self._tail)
            self._tail.clear()
        last = lines.pop()
        if last:
            self._tail.append(last)
        return lines

    def close(self) -> list[str]:
        """The unterminated last line, if any (and whatever the decoder still held)."""
        rest = self._decoder.decode(b"", final=True)
        if rest:
            self.split(rest)
        tail = "".join(self._tail)
        self._tail.clear()
        return [tail] if tail else []
