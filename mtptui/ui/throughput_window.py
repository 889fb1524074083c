"""What the throughput plot draws for a time window: the samples inside it, split where the server was idle.

Textual-free, so the window and the gap rule are tested as plain functions. Times are seconds since the first
log line (mtptui.ui.live_host.ThroughputSeries). A window ends at the latest sample: the log's clock, not the
operator's, so an idle server keeps its last minute on screen and a replayed log plots as it ran.

SGLang logs a decode batch only while requests run, so a pause in the samples is idle time: joining the points
on either side would draw a slope through a period with no throughput at all. The line is cut wherever two
samples are further apart than ``gap_threshold`` (several times the usual spacing, and never less than
GAP_MIN_S).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median
from typing import Iterable, Sequence

Point = tuple[float, float]
WINDOWS: dict[str, float | None] = {"1m": 60.0, "5m": 300.0, "all": None}
WINDOW_LABELS = {"1m": "last 1 min", "5m": "last 5 min", "all": "whole log"}
GAP_MIN_S = 5.0
GAP_FACTOR = 4.0


def gap_threshold(points: Sequence[Point]) -> float:
    """Spacing above which two neighbouring samples are apart (idle in between)."""
    steps = [b[0] - a[0] for a, b in zip(points, points[1:]) if b[0] > a[0]]
    return max(GAP_MIN_S, GAP_FACTOR * median(steps)) if steps else GAP_MIN_S


def split_at_gaps(points: Sequence[Point], gap_s: float) -> list[list[Point]]:
    """Runs of consecutive samples no further apart than ``gap_s``; each is drawn as its own line."""
    segments: list[list[Point]] = []
    for point in points:
        if segments and point[0] - segments[-1][-1][0] <= gap_s:
            segments[-1].append(point)
        else:
            segments.append([point])
    return segments


@dataclass(frozen=True)
class WindowSeries:
    """The plot's content for one window: line segments, warm-up points, restart markers and the x range."""

    segments: list[list[Point]] = field(default_factory=list)
    warm_up: list[Point] = field(default_factory=list)
    restarts: list[float] = field(default_factory=list)
    x_range: tuple[float, float] | None = None

    @property
    def points(self) -> list[Point]:
        return [point for segment in self.segments for point in segment]


def window_series(steady: Iterable[Point], warm_up: Iterable[Point], restarts: Iterable[float],
                  window_s: float | None) -> WindowSeries:
    """The samples of the last ``window_s`` seconds (all with None), the steady ones split at idle gaps."""
    steady, warm_up, restarts = sorted(steady), sorted(warm_up), sorted(restarts)
    times = [t for t, _ in steady + warm_up]
    if not times:
        return WindowSeries(restarts=restarts)
    end = max(times)
    start = min(times) if window_s is None else max(end - window_s, min(times))
    inside = [p for p in steady if p[0] >= start]
    return WindowSeries(split_at_gaps(inside, gap_threshold(steady)), [p for p in warm_up if p[0] >= start],
                        [t for t in restarts if start <= t <= end], (start, end))
