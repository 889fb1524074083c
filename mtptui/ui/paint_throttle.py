"""At most one repaint per interval, however fast data arrives (plots and tables redraw at ~2 Hz)."""

from __future__ import annotations

from time import monotonic
from typing import Callable

from textual.dom import DOMNode
from textual.timer import Timer


class PaintThrottle:
    """``request()`` paints now when the last paint is ``interval_s`` old, else once when it will be.

    The owner's paint calls ``painted()`` when it really drew (a paint may skip itself, e.g. off screen).
    """

    def __init__(self, owner: DOMNode, paint: Callable[[], None], interval_s: float = 0.5) -> None:
        self._owner, self._paint, self.interval_s = owner, paint, interval_s
        self._last = 0.0
        self._timer: Timer | None = None

    def request(self) -> None:
        if self._timer is not None:
            return
        delay = self._last + self.interval_s - monotonic()
        if delay <= 0:
            self._paint()
        else:
            self._timer = self._owner.set_timer(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._paint()

    def painted(self) -> None:
        self._last = monotonic()
