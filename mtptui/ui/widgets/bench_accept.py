"""Accept length beside the bench plot: the figure (live, then the run's own) and a sparkline of its values.

Live values are the server's own as they arrive (its decode-log lines, or new values of its accept-length
gauge), else each finished request's own (sglext); the run's figure, with its source, replaces them at the end.
"""

from __future__ import annotations

from statistics import fmean

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline

from mtptui.ui.bench_state import BenchLive
from mtptui.ui.format import NONE
from mtptui.ui.widgets.render_pane import RenderPane


class BenchAccept(Vertical):
    """Accepted tokens per verify step: 1.0 is no gain from speculation, the mission's good state ~3."""

    def compose(self) -> ComposeResult:
        yield RenderPane(id="bench-accept-figure")
        yield Sparkline([], id="bench-accept-spark")
        yield RenderPane(id="bench-accept-note")

    def show(self, live: BenchLive) -> None:
        unit, values = live.accept_lens
        run = live.outcome.run["summary"].get("accept_len") if live.outcome else None
        figure = run if run is not None else (values[-1] if values else None)
        text = Text(f"{figure:.2f}" if figure is not None else NONE, style="bold")
        text.append(" · this run" if run is not None else (" · last" if values else ""), style="dim")
        self.query_one("#bench-accept-figure", RenderPane).set(text)
        self.query_one("#bench-accept-spark", Sparkline).data = values
        note = (f"{unit}: mean {fmean(values):.2f}, {min(values):.2f}-{max(values):.2f} over {len(values)}"
                if values else "per request as each one finishes")
        self.query_one("#bench-accept-note", RenderPane).set(Text(note, style="dim"))
