"""Serving pane: running and queued requests, pool usage (KV / full token, mamba), request rate, HTTP errors and
retractions from the log's batch lines, each with a short history; and acceptance by context length."""

from __future__ import annotations

from statistics import fmean
from typing import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mtptui.fleet.spark import sparkline
from mtptui.engines.sglang.state.serving import ServingStats, bucket_label
from mtptui.ui.format import NONE
from mtptui.ui.live_host import LiveHost
from mtptui.ui.widgets.render_pane import RenderPane

SPARK_WIDTH = 18


def latest(values: Sequence[float], digits: int = 0, percent: bool = False) -> str:
    if not values:
        return NONE
    return f"{values[-1] * 100:.0f} %" if percent else f"{values[-1]:.{digits}f}"


def spark(values: Sequence[float], top: float | None = None, style: str = "cyan") -> Text:
    return Text(sparkline(list(values)[-SPARK_WIDTH:], top), style)


def accept_by_context(serving: ServingStats) -> str:
    """``<4k 3.10 · <16k 2.80 · ≥16k —``: mean accept length of this startup's decode lines per context bucket."""
    parts = [f"{bucket_label(i)} {fmean(values):.2f}" if values else f"{bucket_label(i)} {NONE}"
             for i, values in enumerate(serving.accept_by_context)]
    return " · ".join(parts)


class ServingPane(RenderPane):
    """Figures left, their recent history right."""

    def show(self, live: LiveHost) -> None:
        serving = live.serving
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="dim", no_wrap=True, min_width=7)
        grid.add_column(no_wrap=True, min_width=5)
        grid.add_column(no_wrap=True)
        queued_style = "bold yellow" if serving.queued and serving.queued[-1] else ""
        grid.add_row("running", latest(serving.running), spark(serving.running))
        grid.add_row("queued", Text(latest(serving.queued), queued_style), spark(serving.queued, style="yellow"))
        grid.add_row("KV", latest(serving.token_usage, percent=True), spark(serving.token_usage, 1.0))
        if serving.mamba_usage:
            grid.add_row("mamba", latest(serving.mamba_usage, percent=True), spark(serving.mamba_usage, 1.0))
        parts: list[RenderableType] = [grid, self._rates(serving), self._errors(serving)]
        if serving.metrics_missing:
            parts.append(Text(serving.metrics_missing, "dim", no_wrap=True, overflow="ellipsis"))
        self.set(Group(*parts, Text(""), Text("accept length by context", "dim"),
                       Text(accept_by_context(serving), no_wrap=True, overflow="ellipsis")))

    @staticmethod
    def _rates(serving: ServingStats) -> Text:
        """Requests per second over the last minute, each with its source: admitted (log), finished (/metrics);
        when they differ beyond a request or two, the line says that they count two different things."""
        log_rate, metrics_rate = serving.request_rate(), serving.metrics_rate
        out = Text.assemble(("req/s   ", "dim"), NONE if log_rate is None else f"{log_rate:.2f}", (" log", "dim"),
                            no_wrap=True, overflow="ellipsis")
        if metrics_rate is not None:
            out.append_text(Text.assemble((" · ", "dim"), f"{metrics_rate:.2f}", (" /metrics", "dim")))
        if serving.rates_differ():
            out.append("\n        ≠ log: admitted, /metrics: finished", "yellow")
        return out

    @staticmethod
    def _errors(serving: ServingStats) -> Text:
        out = Text.assemble(("errors  HTTP ", "dim"), _count(serving.http_errors), (" · retracted ", "dim"),
                            _count(serving.retractions), no_wrap=True, overflow="ellipsis")
        aborted = serving.metrics.get("aborted")
        if aborted is not None:
            out.append_text(Text.assemble((" · aborted ", "dim"), _count(int(aborted))))
        return out


def _count(value: int) -> tuple[str, str]:
    return str(value), "red" if value else ""
