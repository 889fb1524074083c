"""Speculation pane: what runs (algorithm, steps, draft tokens, topk, as SGLang resolves them; configured vs live
when the engine adapts its steps, with a sparkline of the live steps) and how well the drafts are accepted
(accept length and rate now, their mean, and as sparklines)."""

from __future__ import annotations

from statistics import fmean
from typing import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline

from mtptui.speculation import LiveSpeculation
from mtptui.text import visible
from mtptui.ui.format import NONE
from mtptui.ui.live_host import LiveHost
from mtptui.ui.speculation_text import (NO_SETTINGS, configured_vs_live, live_steps_label, per_position,
                                        settings_from_log)
from mtptui.ui.widgets.render_pane import RenderPane

__all__ = ["SpeculationPane", "now_and_mean"]


def now_and_mean(values: Sequence[float], digits: int = 2) -> str:
    if not values:
        return NONE
    return f"{values[-1]:.{digits}f} now · {fmean(values):.{digits}f} mean of {len(values)}"


def step_cost(live: LiveHost) -> Text:
    """`` · step 56 ms``: what one decode step costs a request lately (mtptui.bench.step_cost; the health line
    compares it with the bench history)."""
    recent = list(live.serving.step_ms)[-10:]
    return Text(f" · step {fmean(recent):.0f} ms", "dim") if recent else Text("")


class SpeculationPane(Vertical):
    """Settings on top, then accept length and accept rate as numbers and sparklines."""

    def compose(self) -> ComposeResult:
        yield RenderPane(id="spec-settings")
        yield RenderPane(id="live-steps-label", classes="spark-label")  # shown while the engine adapts (-adaptive)
        yield Sparkline([], id="live-steps-spark")
        yield RenderPane(id="accept-len-label", classes="spark-label")
        yield Sparkline([], id="accept-len-spark")
        yield RenderPane(id="accept-rate-label", classes="spark-label")
        yield Sparkline([], id="accept-rate-spark")

    live: LiveHost | None = None

    def on_resize(self) -> None:
        if self.live is not None:  # the step cost is shown where it fits
            self.show(self.live)

    def show(self, live: LiveHost) -> None:
        self.live = live
        launch = live.host.launch if live.host else None
        view = live.speculation()
        self.query_one("#spec-settings", RenderPane).set(self._settings(launch, view, live))
        self._live_steps(view, live)
        accept = Text.assemble(("accept len  ", "dim"), now_and_mean(live.accept_len))
        step = step_cost(live)
        room = self.content_size.width
        self.query_one("#accept-len-label", RenderPane).set(
            accept + step if not room or accept.cell_len + step.cell_len <= room else accept)
        self.query_one("#accept-rate-label", RenderPane).set(
            Text.assemble(("accept rate ", "dim"), now_and_mean(live.accept_rate)))
        for name, values in (("#accept-len-spark", live.accept_len), ("#accept-rate-spark", live.accept_rate)):
            spark = self.query_one(name, Sparkline)
            spark.data = list(values)
            spark.styles.visibility = "visible" if values else "hidden"

    def _live_steps(self, view: LiveSpeculation | None, live: LiveHost) -> None:
        """The live steps' sparkline, shown only while the engine adapts them."""
        adaptive = view is not None and view.adaptive
        label, spark = self.query_one("#live-steps-label", RenderPane), self.query_one("#live-steps-spark", Sparkline)
        self.set_class(adaptive, "-adaptive")
        if adaptive:
            label.set(Text.assemble(("live steps  ", "dim"), live_steps_label(view, len(live.live_steps))))
            spark.data = list(live.live_steps)

    @staticmethod
    def _settings(launch: object, view: LiveSpeculation | None, live: LiveHost) -> Table:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="dim", no_wrap=True, min_width=12)
        grid.add_column(no_wrap=True, overflow="ellipsis")
        rows = live.engine.launch_rows(launch, NONE) if launch is not None else None
        launched = live.server.speculation.launch_seen or launch is not None
        rows = rows or settings_from_log(view, launched) or NO_SETTINGS  # the log's (or launch's) own words
        if live.per_position is not None:  # an engine that logs acceptance per draft position (vLLM)
            rows = [*rows, ("per position", per_position(live.per_position))]
        for label, value in configured_vs_live(rows, view):
            grid.add_row(label, Text(visible(value), "yellow" if "(auto)" in value else ""))
        source = live.host.launch_source if live.host else ""
        if source:
            grid.add_row("from", Text(visible(source), "dim"))
        return grid
