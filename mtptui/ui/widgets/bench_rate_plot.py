"""The bench's live plot: output tok/s per second of the run, reasoning and content as two series.

x is seconds since the first measured request (numeric, as plotext 5.3 wants); the total is drawn too when
both series carry tokens, so the sum the table reports is visible. The legend lives in the border.
"""

from __future__ import annotations

from textual_plotext import PlotextPlot

from mtptui.bench.events import RateSample
from mtptui.ui.widgets.throughput_pane import y_range
from mtptui.ui.plain import plain

REASONING_COLOR, CONTENT_COLOR, TOTAL_COLOR = "magenta", "cyan", "green"
LEGEND = "x: s since the first request · magenta reasoning · cyan content · green total"


def title_text(samples: tuple[RateSample, ...], result_tok_s: float | None, width: int) -> str:
    """The plot's title; in a narrow pane a shorter name, so the figures are not lost to an ellipsis."""
    figures = (f" · now {samples[-1].output_tok_s:.1f}" if samples else "") + \
        (f" · run {result_tok_s:.1f}" if result_tok_s is not None else "")
    title = "output tok/s per second" + figures
    return "tok/s" + figures if 0 < width < len(title) + 6 else title


class BenchRatePlot(PlotextPlot):
    """Redrawn by the bench screen at most twice a second, and when its size changes."""

    shown: tuple[tuple[RateSample, ...], float | None] = ((), None)

    def on_resize(self) -> None:
        self.show(*self.shown)

    def show(self, samples: tuple[RateSample, ...], result_tok_s: float | None = None) -> None:
        self.shown = (samples, result_tok_s)
        plt = self.plt
        plt.clear_figure()
        self.border_title = plain(title_text(samples, result_tok_s, self.size.width))
        self.border_subtitle = plain(LEGEND if samples else "waiting for the first measured second")
        if samples:
            xs = [s.t for s in samples]
            reasoning = [s.reasoning_tok_s for s in samples]
            content = [s.content_tok_s for s in samples]
            plt.plot(xs, reasoning, marker="braille", color=REASONING_COLOR)
            plt.plot(xs, content, marker="braille", color=CONTENT_COLOR)
            if any(reasoning) and any(content):
                plt.plot(xs, [s.output_tok_s for s in samples], marker="braille", color=TOTAL_COLOR)
            plt.ylim(*y_range([0.0] + [s.output_tok_s for s in samples]))
        else:
            plt.ylim(0.0, 1.0)
        self.refresh()
