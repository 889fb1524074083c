"""Server-sent events from a streamed response, with a bound on the size of one event.

The WHATWG event-stream format as SGLang uses it: ``data:`` lines (joined by newlines), an optional ``event:``
name, ``:`` comments, and a blank line that ends an event; lines end with CR, LF or CRLF. An event (or a line
still unfinished) over ``limit`` characters raises EventTooLarge instead of growing without bound: SGLang's
chunks are a few hundred bytes, a 300 MB one is a broken or hostile server.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_EVENT_CHARS = 1 << 20


class EventTooLarge(ValueError):
    """One event (or one line) of the stream is over the limit."""


@dataclass(frozen=True, slots=True)
class Event:
    event: str
    data: str


class EventParser:
    """Feed decoded text in any pieces; complete events come out."""

    def __init__(self, limit: int = MAX_EVENT_CHARS) -> None:
        self.limit = limit
        self._partial: list[str] = []  # pieces of the line not yet ended
        self._partial_size = 0
        self._size = 0  # characters of the current event's finished lines
        self._cr = False  # the last piece ended with CR: a LF first in the next one is the same line end
        self._name = ""
        self._data: list[str] = []

    def feed(self, text: str) -> list[Event]:
        if self._cr and text.startswith("\n"):
            text = text[1:]
        self._cr = text.endswith("\r")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        *lines, rest = text.split("\n")
        events = []
        if lines:
            lines[0] = "".join(self._partial) + lines[0]
            self._partial.clear()
            self._partial_size = 0
            events = [event for line in lines if (event := self._line(line)) is not None]
        if rest:
            self._partial.append(rest)
            self._partial_size += len(rest)
            self._check(0)
        return events

    def _check(self, more: int) -> None:
        self._size += more
        if self._size + self._partial_size > self.limit:
            raise EventTooLarge(f"an event over {self.limit // (1 << 20)} MiB")

    def _line(self, line: str) -> Event | None:
        if not line:
            return self._dispatch()
        self._check(len(line) + 1)
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._name = value
        return None

    def _dispatch(self) -> Event | None:
        """A blank line: the event so far, if it carried data (the spec drops one without)."""
        event = Event(self._name, "\n".join(self._data)) if self._data else None
        self._name, self._data, self._size = "", [], 0
        return event
