"""Speculation pane: what runs (algorithm, steps, draft tokens, topk, as SGLang resolves them) and how well
the drafts are accepted (accept length and rate now, their mean, and as sparklines)."""

from __future__ import annotations

from statistics import fmean
from typing import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline

from mtptui.sglang.flags import FlagSet, resolve_effective
from mtptui.text import visible
from mtptui.ui.format import NONE
from mtptui.ui.session import Session
from mtptui.ui.widgets.render_pane import RenderPane

ALGO, STEPS, DRAFT, TOPK = ("--speculative-algorithm", "--speculative-num-steps", "--speculative-num-draft-tokens",
                            "--speculative-eagle-topk")


def spec_settings(launch: FlagSet | None) -> list[tuple[str, str]]:
    """(label, value) rows for the speculative flags, resolved the way SGLang resolves them."""
    if launch is None:
        return [("algorithm", NONE), ("steps", NONE), ("draft tokens", NONE), ("topk", NONE)]
    written = launch.get(ALGO)
    if written is None:
        return [("algorithm", "none (no speculative decoding)")]
    effective = resolve_effective(launch)
    algorithm = str(written)
    runs_as = effective.get(ALGO)
    if runs_as is not None and str(runs_as.value) != algorithm.upper():
        algorithm += f" (runs as {runs_as.value})"
    return [("algorithm", algorithm)] + [(label, str(effective[flag]) if flag in effective else NONE)
                                         for label, flag in (("steps", STEPS), ("draft tokens", DRAFT),
                                                             ("topk", TOPK))]


def now_and_mean(values: Sequence[float], digits: int = 2) -> str:
    if not values:
        return NONE
    return f"{values[-1]:.{digits}f} now · {fmean(values):.{digits}f} mean of {len(values)}"


class SpeculationPane(Vertical):
    """Settings on top, then accept length and accept rate as numbers and sparklines."""

    def compose(self) -> ComposeResult:
        yield RenderPane(id="spec-settings")
        yield RenderPane(id="accept-len-label", classes="spark-label")
        yield Sparkline([], id="accept-len-spark")
        yield RenderPane(id="accept-rate-label", classes="spark-label")
        yield Sparkline([], id="accept-rate-spark")

    def show(self, session: Session) -> None:
        launch = session.host.launch if session.host else None
        self.query_one("#spec-settings", RenderPane).set(self._settings(launch, session))
        self.query_one("#accept-len-label", RenderPane).set(
            Text.assemble(("accept len  ", "dim"), now_and_mean(session.accept_len)))
        self.query_one("#accept-rate-label", RenderPane).set(
            Text.assemble(("accept rate ", "dim"), now_and_mean(session.accept_rate)))
        for name, values in (("#accept-len-spark", session.accept_len), ("#accept-rate-spark", session.accept_rate)):
            spark = self.query_one(name, Sparkline)
            spark.data = list(values)
            spark.styles.visibility = "visible" if values else "hidden"

    @staticmethod
    def _settings(launch: FlagSet | None, session: Session) -> Table:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="dim", no_wrap=True, min_width=12)
        grid.add_column(no_wrap=True, overflow="ellipsis")
        for label, value in spec_settings(launch):
            grid.add_row(label, Text(visible(value), "yellow" if "(auto)" in value else ""))
        source = session.host.launch_source if session.host else ""
        if source:
            grid.add_row("from", Text(visible(source), "dim"))
        return grid
