"""Help screen (F1 / ?): every key as currently bound, and what the panes show."""

from __future__ import annotations

from typing import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from mtptui.ui.plain import PlainStatic as Static

PANES = (
    ("header", "host · service state · {engine} version · connection (connected / reconnecting in N s / "
               "failed: why) · server uptime · READONLY when started with --readonly"),
    ("startup", "phase, weight-shard loading, CUDA-graph capture, KV capacity, what was served, last problem"),
    ("GPU memory", "per tensor-parallel rank: weights, MTP head, KV target and draft, mamba, graphs, available"),
    ("speculation", "algorithm, steps, draft tokens, topk as {engine} resolves them ((auto) = {engine} chose); "
                    "accept length and rate now, their mean and as sparklines"),
    ("throughput", "server gen tok/s from the log; the first batch of a startup (warm-up) is drawn apart "
                   "and left out of the steady mean; the line breaks where the server was idle; 1 / 5 / 0 show "
                   "the last minute, the last 5 minutes, the whole log"),
    ("GPUs", "nvidia-smi every 1.5 s over the host's connection: utilisation (bar and last minute), memory, "
             "temperature, power against its limit; one sentence when the host has no nvidia-smi"),
    ("log", "follows the end; scrolling back pauses it and counts new lines; errors red, warnings yellow"),
    ("restart", "shown during and after a restart (R known-good, r pick a profile): stopping → starting → loading "
                "shards N/M → capturing graphs → ready, or the crash reason and the automatic rollback"),
    ("diff (d)", "running vs unit vs profile as {engine} resolves them, speculative flags first, then memory and "
                 "capacity; Enter explains a flag, s all/differing (env vars too), p next profile, a apply it"),
    ("flags (f)", "the launch profile as a form, {engine}'s lint inline, the command previewed; ctrl+s save, "
                  "ctrl+g save as known-good"),
    ("bench (b)", "prompt set, concurrency, requests, max tokens; s start, g go again (e.g. after a restore), "
                  "i statistics; output tok/s per second (reasoning and content), accept length, progress, "
                  "TTFT/TPOT/ITL/E2E percentiles, and the verdict against the best earlier run and the run before "
                  "(recorded in $XDG_DATA_HOME/mtptui/); allowed under --readonly"),
)


class HelpScreen(ModalScreen[None]):
    """Lists (key, action) pairs handed over by the screen that opened it."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close", show=False)]

    def __init__(self, keys: Sequence[tuple[str, ...]], engine: str = "SGLang") -> None:
        """``keys``: (key, action) or (key, action, binding id) rows; the ids are what keys.toml remaps;
        ``engine``: the name of the host's engine, as the panes' words say it."""
        super().__init__()
        self.keys = keys
        self.engine = engine

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(self._keys_table(), id="help-keys")
            yield Static(self._panes_table(), id="help-panes")
            yield Static(Text("Keys can be remapped in $XDG_CONFIG_HOME/mtptui/keys.toml ([keys] id = \"key\"). "
                              "Escape closes this help.", "dim"), id="help-footer")

    def on_mount(self) -> None:
        self.query_one("#help-body").border_title = "mtptui help"

    def _keys_table(self) -> Table:
        table = Table(title="keys", box=None, padding=(0, 2), title_justify="left", title_style="bold")
        with_ids = any(len(row) > 2 for row in self.keys)
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("action")
        if with_ids:
            table.add_column("id (keys.toml)", style="dim", no_wrap=True)
        for row in self.keys:
            table.add_row(*row[:3 if with_ids else 2])
        return table

    def _panes_table(self) -> Table:
        table = Table(title="panes", box=None, padding=(0, 2), title_justify="left", title_style="bold")
        table.add_column("pane", style="bold", no_wrap=True)
        table.add_column("shows")
        for pane, text in PANES:
            table.add_row(pane, text.replace("{engine}", self.engine))
        return table
