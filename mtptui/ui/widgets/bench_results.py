"""The bench results: latency percentiles (TTFT, TPOT, ITL, E2E) and the run's throughput figures."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mtptui.text import visible
from mtptui.ui.bench_state import BenchLive
from mtptui.ui.widgets.render_pane import RenderPane

LATENCIES = (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"), ("itl_ms", "ITL (per token)"), ("e2e_ms", "E2E"))
PERCENTILES = ("mean", "median", "p90", "p95", "p99")


def _num(value: Any, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def latency_table(summary: dict[str, Any]) -> Table:
    table = Table(box=None, padding=(0, 1), header_style="bold", title="latency (ms)", title_justify="left",
                  title_style="bold")
    table.add_column("", no_wrap=True)
    for name in PERCENTILES:
        table.add_column(name, justify="right", no_wrap=True)
    for key, label in LATENCIES:
        d = summary.get(key) or {}
        table.add_row(label, *(_num(d.get(name)) for name in PERCENTILES))
    return table


def _accept(summary: dict[str, Any]) -> str:
    source = summary.get("accept_len_source")
    if summary.get("accept_len") is None and summary.get("accept_len_note"):
        return "— (none)"
    return _num(summary.get("accept_len"), 2) + (f" ({source})" if source else "")


def figures_table(summary: dict[str, Any]) -> Table:
    rows = (
        ("output tok/s", _num(summary.get("output_tok_s"))),
        ("per-request tok/s", _num(summary.get("request_tok_s"))),
        ("peak tok/s (1 s)", _num(summary.get("peak_output_tok_s"))),
        ("accept length", _accept(summary)),
        ("requests ok / failed", f"{summary.get('requests_ok', 0)} / {summary.get('requests_failed', 0)}"),
        ("tokens reasoning / content",
         f"{summary.get('reasoning_tokens', 0):,} / {summary.get('content_tokens', 0):,}"),
        ("duration", f"{_num(summary.get('duration_s'))} s"),
    )
    table = Table(box=None, padding=(0, 1), show_header=False, title="throughput", title_justify="left",
                  title_style="bold")
    table.add_column("", no_wrap=True)
    table.add_column("", justify="right", style="bold", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    return table


class BenchResults(RenderPane):
    """Empty until a run finishes; failed requests are counted in the figures and their errors listed."""

    def show(self, live: BenchLive) -> None:
        if live.outcome is None:
            self.set(Text(self._waiting(live), style="dim"))
            return
        run = live.outcome.run
        summary = run["summary"]
        parts: list[RenderableType] = [latency_table(summary), Text(""), figures_table(summary)]
        errors = [r["error"] for r in run.get("requests", []) if not r.get("ok") and r.get("error")]
        for error in dict.fromkeys(errors):
            parts.append(Text(visible(f"failed: {error}"[:200]), style="red"))
        parts += [Text(visible(f"warning: {w}"[:200]), style="yellow") for w in run.get("warnings") or []]
        self.set(Group(*parts))

    @staticmethod
    def _waiting(live: BenchLive) -> str:
        if live.state == "running":
            return "the results come when the last request is done"
        if live.state == "failed":
            return visible(f"no results: {live.error}")
        return "no run yet: choose the workload and press s (or Enter on Start)"
