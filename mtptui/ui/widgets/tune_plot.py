"""The tune's Pareto plot: per-request tok/s (what one user sees) against total output tok/s (what the host
serves), one point per arm and concurrency (``o``; the best arm's ``*``), each arm's points joined from low to
high concurrency, the Pareto front drawn in gray under them, the best arm named at its c=1 point. Each arm has its
color in the table too, so the table is the legend (a legend inside the plot would cover the points)."""

from __future__ import annotations

from textual_plotext import PlotextPlot

from mtptui.ops.tune.arms import Arm
from mtptui.ops.tune.state import TuneRun
from mtptui.ops.tune.verdict import pareto
from mtptui.ui.widgets.throughput_pane import y_range
from mtptui.ui.plain import plain

COLORS = ("cyan", "magenta", "yellow", "blue", "red", "white")
BEST_COLOR, FRONT_COLOR = "green", "gray"
LEGEND = "x total · y per request tok/s · gray: Pareto front"


def arm_color(run: TuneRun, arm: Arm) -> str:
    """The arm's color in the plot and in the table (the table is the plot's legend); the best arm's is green."""
    best = run.verdict.best if run.verdict else None
    return BEST_COLOR if arm is best else COLORS[run.arms.index(arm) % len(COLORS)]


def _points(arm: Arm) -> tuple[list[float], list[float]]:
    measured = [(r.output_tok_s, r.request_tok_s) for r in sorted(arm.results, key=lambda r: r.concurrency)
                if r.output_tok_s and r.request_tok_s]
    return [total for total, _ in measured], [per_request for _, per_request in measured]


class TunePlot(PlotextPlot):
    """Redrawn by the tune screen when a measurement arrives."""

    def show(self, run: TuneRun | None) -> None:
        plt = self.plt
        plt.clear_figure()
        best = run.verdict.best if run is not None and run.verdict else None
        arms = [arm for arm in (run.arms if run else []) if _points(arm)[0]]
        self.border_title = plain("per-request vs total tok/s" + (f" · best {best.label}" if best else ""))
        self.border_subtitle = plain(LEGEND if arms else "waiting for the first measured arm")
        if run is None or not arms:  # no run has no arms
            plt.xlim(0.0, 1.0)
            plt.ylim(0.0, 1.0)
            self.refresh()
            return
        front = sorted(pareto(arms), key=lambda p: p[2])
        if len(front) > 1:
            plt.plot([p[2] for p in front], [p[3] for p in front], marker="braille", color=FRONT_COLOR)
        for arm in arms:
            xs, ys = _points(arm)
            color = arm_color(run, arm)
            plt.plot(xs, ys, marker="braille", color=color)
            plt.scatter(xs, ys, marker="*" if arm is best else "o", color=color)
        if best is not None:
            xs, ys = _points(best)
            plt.text(f"best: {best.label}", xs[0], ys[0], color=BEST_COLOR, alignment="left")
        every = [p for arm in arms for p in zip(*_points(arm))]
        plt.xlim(*y_range([x for x, _ in every]))
        plt.ylim(*y_range([y for _, y in every]))
        self.refresh()
