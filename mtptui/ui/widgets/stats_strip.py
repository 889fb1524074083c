"""The dashboard's compact strip, shown instead of the panes on small terminals (see dashboard.tcss).

Three lines carry what the panes carry at a glance: the phase and the last problem; accept length and
throughput now and their means; each rank's GPU memory and the KV pool. The help screen and a larger
terminal give the rest.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text


from mtptui.ui.format import NONE, number, offline_text
from mtptui.ui.live_host import LiveHost
from mtptui.ui.widgets.memory_pane import usage_bar
from mtptui.ui.widgets.render_pane import RenderPane
from mtptui.ui.widgets.startup_pane import StartupPane, problems_text

BAR_WIDTH = 6


class StatsStrip(RenderPane):
    """Repainted with the panes; its lines are cut with an ellipsis, never wrapped. A host that does not answer
    is its first line (the panes it stands for say so in their borders)."""

    def __init__(self, host: str = "HOST", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.host = host

    def show(self, live: LiveHost) -> None:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, overflow="ellipsis")
        offline = live.up.offline
        if offline is not None:
            grid.add_row(Text(offline_text(offline, self.host, self.size.width), "bold red"))
        else:
            grid.add_row(Text.assemble(StartupPane.phase_text(live), " · ", problems_text(live)))
        grid.add_row(speed_line(live))
        grid.add_row(memory_line(live))
        self.set(grid)


def speed_line(live: LiveHost) -> Text:
    accept = live.accept_len
    now = live.gen_now
    mean = live.steady_mean if not live.now_cleared else None
    return Text.assemble(
        ("accept len ", "dim"), f"{accept[-1]:.2f} now · {sum(accept) / len(accept):.2f} mean" if accept else NONE,
        ("  gen tok/s ", "dim"), f"{now:.1f} now" if now is not None else NONE,
        f" · {mean:.1f} steady mean" if mean is not None else "")


def load_text(live: LiveHost) -> Text:
    """Running and queued requests: a queue is the visible symptom of too few running slots."""
    serving = live.serving
    if not serving.running:
        return Text()
    queued = serving.queued[-1] if serving.queued else 0
    return Text.assemble(("  run ", "dim"), str(serving.running[-1]),
                         (" queue ", "dim"), (str(queued), "bold yellow" if queued else ""))


def memory_line(live: LiveHost) -> Text:
    ranks = live.server.memory.ranks
    if not ranks:
        return Text("GPU memory: waiting for the startup log", "dim")
    gpu_gb = live.host.gpu_memory_gb if live.host else None
    text = Text("GPU ", "dim")
    for label, rank in ranks.items():
        text.append_text(Text.assemble((f"{label} ", "dim"), usage_bar(rank, gpu_gb, BAR_WIDTH), "  "))
    first = next(iter(ranks.values()))
    if first.kv_tokens:
        text.append(f"KV pool {number(first.kv_tokens)} tok", "dim")
    return text.append_text(load_text(live))
