"""Help of the fleet screen: its keys and what each column shows."""

from __future__ import annotations

from rich.table import Table

from mtptui.ui.screens.help import HelpScreen

COLUMNS = (
    ("flag", "● ok · ▲ warn (acceptance collapse, or slower than this instance's own history) · ✖ down"),
    ("state", "up or down as Prometheus scraped it, and seconds since its last scrape"),
    ("version", "SGLang release: a target label, else the metric families it exports, else the host file"),
    ("tok/s, trend", "output tokens/s, rate(generation_tokens_total) over the window; trend: the last 10 windows"),
    ("accept", "accept length: generation tokens / spec_verify_calls_total where the version has it, else the "
               "spec_accept_length gauge over the window"),
    ("run, queue, KV", "running and queued requests, KV-cache usage (the fullest rank)"),
    ("TTFT, ITL", "time to first token p50/p99 and inter-token latency p99 from SGLang's histograms"),
    ("req/s, err/s", "finished and aborted requests per second"),
    ("host", "the host profile Enter opens (read-only); the line below the table says how to add one"),
)


class FleetHelpScreen(HelpScreen):
    """The dashboard's help panel, with the fleet's columns instead of the dashboard's panes."""

    def _panes_table(self) -> Table:
        table = Table(title="columns", box=None, padding=(0, 2), title_justify="left", title_style="bold")
        table.add_column("column", style="bold", no_wrap=True)
        table.add_column("shows")
        for column, text in COLUMNS:
            table.add_row(column, text)
        return table
