"""When a live stream pauses mid-traceback: release the held-back error after a quiet period.

The parser holds an `error` back until a line shows its traceback is over; a crashing server may write nothing
more, so a follower must not wait for that line forever. The clock is the caller's (`now` in seconds, any
monotonic origin): the dashboard passes its event loop's time, tests pass plain numbers, nothing here sleeps.
"""

from __future__ import annotations

from typing import Protocol

from mtptui.engines.sglang.logparse.events import Event

QUIET_S = 2.0  # longer than a remote `tail -F` poll, so a traceback split over two reads stays whole


class HoldingParser(Protocol):
    """What the release needs of a parser (engines.sglang.logparse.stream.LogParser, or an engine's dashboard
    parser): whether it holds an error back, and a way to let it go."""

    @property
    def holding(self) -> bool: ...

    def flush_pending(self, out: list[Event]) -> list[Event]: ...


class QuietRelease:
    """Tell it when lines arrive (`fed`); it says how long to wait (`wait_s`) and releases the error (`release`)."""

    def __init__(self, quiet_s: float = QUIET_S) -> None:
        self.quiet_s = quiet_s
        self.last_line_at: float | None = None

    def fed(self, now: float) -> None:
        """Lines arrived at `now`: the quiet period starts again."""
        self.last_line_at = now

    def wait_s(self, parser: HoldingParser, now: float) -> float | None:
        """Seconds until a held-back error is due for release; None when the parser holds none."""
        if not parser.holding:
            return None
        since = now - self.last_line_at if self.last_line_at is not None else self.quiet_s
        return max(self.quiet_s - since, 0.0)

    def release(self, parser: HoldingParser, now: float, out: list[Event]) -> list[Event]:
        """Append the held-back error to `out` once the stream has been quiet for `quiet_s`."""
        if self.wait_s(parser, now) == 0.0:
            parser.flush_pending(out)
        return out
