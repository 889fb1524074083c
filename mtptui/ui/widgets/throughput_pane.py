"""Throughput pane: server gen tok/s from the log against seconds since start, steady mean marked.

Warm-up batches (the first decode batch of each startup) are drawn apart as ``x`` and left out of the mean; the
switches of adaptive speculation (the engine changed its draft steps) are marked with a magenta line;
idle batches (no running request) are left out altogether, and the line is cut where the server was idle
(mtptui.ui.throughput_window). The window is the last minute, the last five or the whole log. The legend lives
in the pane's border, so the plot keeps every row for data.
"""

from __future__ import annotations

import math

from textual_plotext import PlotextPlot

from mtptui.ui.live_host import LiveHost
from mtptui.ui.throughput_window import WINDOW_LABELS, WINDOWS, window_series
from mtptui.ui.plain import plain

STEADY_COLOR, WARM_UP_COLOR, MEAN_COLOR, RESTART_COLOR, SWITCH_COLOR = "cyan", "orange", "green", "red", "magenta"
LEGEND = "x: seconds since the first log line · ⠒ steady mean · x warm-up (excluded)"
SHORT_LEGEND = "x: s since the first line · ⠒ mean · x warm-up"


def y_range(values: list[float]) -> tuple[float, float]:
    """A range that shows the spread: from a round number below the lowest value to 15 % above the top."""
    low, high = min(values), max(values)
    step = 10 ** math.floor(math.log10(max(high - low, high * 0.2, 1e-9)))
    return max(math.floor(low * 0.9 / step) * step, 0.0), high * 1.15 if high > 0 else 1.0


def title_text(mean: float | None, before: float | None, width: int) -> str:
    """The pane's title, shortened to fit ``width`` columns rather than losing its figures to an ellipsis."""
    figures = (f" · steady mean {mean:.1f}" if mean is not None else "") + \
        (f" this run · {before:.1f} before the restart" if before is not None else "")
    titles = ["throughput · server gen tok/s" + figures, "gen tok/s" + figures,
              "gen tok/s" + (f" · mean {mean:.1f}" if mean is not None else "")
              + (f" · {before:.1f} before restart" if before is not None else "")]
    return next((title for title in titles if not 0 < width < len(title) + 6), titles[-1])


class ThroughputPane(PlotextPlot):
    """Redrawn by the dashboard at most twice a second, and only when new decode batches arrived;
    ``time_window`` (a key of WINDOWS: 1m, 5m, all) is chosen with the dashboard's keys."""

    time_window = "all"

    live: LiveHost | None = None

    def on_resize(self) -> None:
        if self.live is not None:
            self.show(self.live)

    def _switches(self, live: LiveHost, x_range: tuple[float, float] | None) -> list[float]:
        """Adaptive switches inside the window (one just before its first sample, often the case, included)."""
        if x_range is None:
            return []
        window = WINDOWS[self.time_window]
        start = x_range[1] - window if window is not None else float("-inf")
        return [at for at, _, _ in live.throughput.switches if start <= at <= x_range[1]]

    def show(self, live: LiveHost) -> None:
        self.live = live
        plt = self.plt
        plt.clear_figure()
        mean = live.steady_mean if not live.now_cleared else None  # a restart: not the new process's
        series = live.throughput
        shown = window_series(series.steady, series.warm_up, series.restarts, WINDOWS[self.time_window])
        points, warm, restarts = shown.points, shown.warm_up, series.restarts
        restarted = bool(restarts) and live.previous_mean is not None
        window = f" · {WINDOW_LABELS[self.time_window]}"
        before = live.previous_mean if restarted else None
        self.border_title = plain(title_text(mean, before, self.size.width - len(window)) + window)
        points_now = [p for p in points if p[0] >= restarts[-1]] if restarted else points
        for at in shown.restarts:
            plt.vline(at, color=RESTART_COLOR)
        switches = self._switches(live, shown.x_range)
        for at in switches:
            plt.vline(at, color=SWITCH_COLOR)
        up = live.up
        down = up.down
        legend = SHORT_LEGEND if 0 < self.size.width < len(LEGEND) + 16 else LEGEND
        if up.offline is None:  # while the host does not answer, the dashboard's "not connected" stays
            self.border_subtitle = plain(f"server {down} · last run's figures" if down else (
                legend + (" · │ restart" if restarts else "") + (" · │ switch" if switches else ""))
                if points or warm else "waiting for decode batches")
        if mean is not None and points_now:
            plt.plot([points_now[0][0], points_now[-1][0]], [mean, mean], marker="braille", color=MEAN_COLOR)
        for segment in shown.segments:  # apart: an idle gap is no line
            xs, ys = zip(*segment)
            plt.plot(xs, ys, marker="braille", color=STEADY_COLOR)
        if warm:
            wx, wy = zip(*warm)
            plt.scatter(wx, wy, marker="x", color=WARM_UP_COLOR)
        x_range = (min(shown.x_range[0], *switches), shown.x_range[1]) if shown.x_range and switches else shown.x_range
        if x_range and x_range[1] > x_range[0]:
            plt.xlim(*x_range)
        values = [y for _, y in points + warm] + ([mean] if mean is not None else [])
        plt.ylim(*y_range(values or [0.0, 1.0]))
        self.refresh()
