"""Startup pane: phase, weight-shard loading, CUDA-graph capture, capacity and what the server has served."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from mtptui.engines.sglang.state import phases
from mtptui.engines.sglang.state.errors import headline
from mtptui.text import visible
from mtptui.ui.format import NONE, bar, duration, number
from mtptui.engines.sglang.logparse.timestamps import parse_ts
from mtptui.ui.live_host import LiveHost
from mtptui.ui.widgets.render_pane import RenderPane

PHASE_TEXT = {
    phases.STARTING: ("starting", "yellow"),
    phases.LOADING_WEIGHTS: ("loading weights", "yellow"),
    phases.ALLOCATING_POOLS: ("allocating KV / mamba pools", "yellow"),
    phases.CAPTURING_GRAPHS: ("capturing CUDA graphs", "yellow"),
    phases.WARMING_UP: ("warming up", "yellow"),
    phases.READY: ("ready", "bold green"),
    phases.CRASHED: ("crashed", "bold red"),
}
BAR_WIDTH = 20


class StartupPane(RenderPane):
    """Where the latest startup stands."""

    def show(self, live: LiveHost) -> None:
        self.set(self.table(live))

    def table(self, live: LiveHost) -> Table:
        state = live.server
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="dim", no_wrap=True, min_width=8)
        grid.add_column(no_wrap=True, overflow="ellipsis")
        grid.add_row("phase", self.phase_text(live))
        grid.add_row("shards", _progress(state.shards, ""))
        capture = state.startup.graph_capture
        grid.add_row("graphs", _progress(capture, f" bs {capture['bs']}" if capture and capture.get("bs") else ""))
        grid.add_row("capacity", _capacity(state.capacity))
        grid.add_row("served", _served(live))
        grid.add_row("problems", problems_text(live))
        return grid

    @staticmethod
    def phase_text(live: LiveHost) -> Text:
        state = live.server
        down, host = live.up.down, live.host
        if down is not None:  # said by the host's status, so there is one
            service = host.service_state if host is not None else "unknown"
            return Text.assemble(("● ", "bold red"), (down, "bold red"), (f" · service {visible(service)}", "dim"))
        label, style = PHASE_TEXT.get(state.phase, (state.phase, "yellow"))
        text = Text.assemble(("● ", style), (label, style))
        started, ready = parse_ts(state.startup.started_at), parse_ts(state.ready_at)
        if started is not None and ready is not None and state.phase == phases.READY:
            text.append(f" · startup took {duration(ready - started)}", "dim")
        return text


def _progress(progress: dict[str, Any] | None, extra: str) -> Text:
    if not progress or not progress.get("total"):
        return Text(NONE, "dim")
    done, total = progress["done"], progress["total"]
    style = "green" if done >= total else "yellow"
    return Text.assemble((bar(done / total, BAR_WIDTH), style), f" {done}/{total}{extra}")


def _capacity(capacity: dict[str, Any] | None) -> Text:
    if not capacity:
        return Text(NONE, "dim")
    text = Text(f"{number(capacity.get('max_total_num_tokens'))} tok · ctx {number(capacity.get('context_len'))}"
                f" · max run {number(capacity.get('max_running_requests'))}")
    if capacity.get("max_concurrency") is not None:  # the engine's own sum: requests of a full context that fit
        text.append(f" · {capacity['max_concurrency']:g}× full ctx")
    return text


def _served(live: LiveHost) -> Text:
    state = live.server
    ok = sum(count for status, count in state.http_status.items() if 200 <= status < 300)
    text = Text(f"{ok:,} HTTP ok · {state.decode_count:,} decode batches")
    for status, count in sorted(state.http_status.items()):
        if status >= 300:
            text.append(f" · {count:,}× {status}", "yellow" if status < 500 else "red")
    return text


def problems_text(live: LiveHost) -> Text:
    """This server run's errors and warnings (a restart starts afresh), the exception line first."""
    run = live.server.startup
    if run.last_error:
        more = f" ({run.errors:,} errors)" if run.errors > 1 else ""
        return Text(visible(f"error: {headline(run.cause or run.last_error)}{more}"), "bold red")
    if run.warnings:
        return Text(visible(f"{run.warnings:,} warnings: {run.last_warning}"), "yellow")
    return Text("no errors, no warnings", "dim")
