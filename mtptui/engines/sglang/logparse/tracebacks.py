"""An error line held back while its traceback (unprefixed lines) follows, and what it says once released.

A released error names the last frame of its traceback (`File "…", line N, in f`) and says whether the traceback
was cut off: it had begun (a `Traceback (most recent call last):` header) but its last line is still a frame, a
source line or a header, not the exception line that ends every complete traceback. That happens when the input
ends mid-crash (a log fetched or pasted while the process was still writing) or a live stream pauses there.
"""

from __future__ import annotations

import re

from mtptui.engines.sglang.logparse.events import Event

MAX_TRACEBACK_LINES = 400  # memory stays bounded when an error is followed by endless unprefixed output
MAX_TRACEBACK_LINE = 10_000  # characters kept of one folded line
HEADER = "Traceback (most recent call last):"
CHAINED = ("During handling of the above exception, another exception occurred:",
           "The above exception was the direct cause of the following exception:")
FRAME = re.compile(r'\s*(File ".*", line \d+.*?)\s*$')


class PendingError:
    """An `error` event and the lines folded into it so far."""

    def __init__(self, event: Event) -> None:
        self.event = event
        self.lines: list[str] = []
        self.dropped = 0
        self.started = HEADER in event.fields["message"]  # a traceback has begun
        self.last = event.fields["message"]  # the last line that is not blank
        self.last_frame: str | None = None

    def fold(self, text: str) -> None:
        if len(self.lines) < MAX_TRACEBACK_LINES:
            self.lines.append(text if len(text) <= MAX_TRACEBACK_LINE else text[:MAX_TRACEBACK_LINE] + "…")
        else:
            self.dropped += 1
        if text.strip():
            self.last = text
            if text.startswith(HEADER):
                self.started = True
            elif text[:1].isspace() and (frame := FRAME.match(text)) is not None:
                self.last_frame = frame.group(1)

    def release(self) -> Event:
        """The event with its traceback folded in, its last frame, and whether the traceback was cut off."""
        lines = self.lines
        while lines and not lines[-1].strip():
            lines.pop()
        if self.dropped:
            lines.append(f"[{self.dropped} more lines]")
        fields = self.event.fields
        fields["traceback"] = "\n".join(lines) if lines else None
        fields["last_frame"] = self.last_frame
        fields["truncated"] = self.started and self.cut_off()
        return self.event

    def cut_off(self) -> bool:
        """The last line is a frame or source line (indented), or a header: no exception line came yet."""
        last = self.last
        return last[:1].isspace() or last.rstrip().endswith(HEADER) or last.rstrip() in CHAINED
