"""The dashboard's compact strip, shown instead of the panes on small terminals (see dashboard.tcss).

Three lines carry what the panes carry at a glance: the phase and the last problem; accept length and
throughput now and their means; each rank's GPU memory and the KV pool. The help screen and a larger
terminal give the rest.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from mtptui.ui.format import NONE, number
from mtptui.ui.session import Session
from mtptui.ui.widgets.memory_pane import usage_bar
from mtptui.ui.widgets.render_pane import RenderPane
from mtptui.ui.widgets.startup_pane import StartupPane, problems_text

BAR_WIDTH = 6


class StatsStrip(RenderPane):
    """Repainted with the panes; its lines are cut with an ellipsis, never wrapped."""

    def show(self, session: Session) -> None:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, overflow="ellipsis")
        grid.add_row(Text.assemble(StartupPane.phase_text(session), " · ", problems_text(session)))
        grid.add_row(speed_line(session))
        grid.add_row(memory_line(session))
        self.set(grid)


def speed_line(session: Session) -> Text:
    accept = session.accept_len
    steady = session.throughput.steady
    mean = session.steady_mean
    return Text.assemble(
        ("accept len ", "dim"), f"{accept[-1]:.2f} now · {sum(accept) / len(accept):.2f} mean" if accept else NONE,
        ("  gen tok/s ", "dim"), f"{steady[-1][1]:.1f} now" if steady else NONE,
        f" · {mean:.1f} steady mean" if mean is not None else "")


def load_text(session: Session) -> Text:
    """Running and queued requests: a queue is the visible symptom of too few running slots."""
    serving = session.serving
    if not serving.running:
        return Text()
    queued = serving.queued[-1] if serving.queued else 0
    return Text.assemble(("  run ", "dim"), str(serving.running[-1]),
                         (" queue ", "dim"), (str(queued), "bold yellow" if queued else ""))


def memory_line(session: Session) -> Text:
    ranks = session.server.memory.ranks
    if not ranks:
        return Text("GPU memory: waiting for the startup log", "dim")
    gpu_gb = session.host.gpu_memory_gb if session.host else None
    text = Text("GPU ", "dim")
    for label, rank in ranks.items():
        text.append_text(Text.assemble((f"{label} ", "dim"), usage_bar(rank, gpu_gb, BAR_WIDTH), "  "))
    first = next(iter(ranks.values()))
    if first.kv_tokens:
        text.append(f"KV pool {number(first.kv_tokens)} tok", "dim")
    return text.append_text(load_text(session))
