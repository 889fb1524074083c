"""One line of progress: a bar of requests done out of the total, failures, in flight, seconds measured."""

from __future__ import annotations

from rich.text import Text

from mtptui.ui.bench_state import BenchLive
from mtptui.ui.format import bar
from mtptui.ui.widgets.render_pane import RenderPane

BAR_WIDTH = 60
STATE_TEXT = {"idle": "ready to start", "running": "running", "finished": "finished", "failed": "failed"}


class BenchProgress(RenderPane):
    """Done / total as a bar; failures in red."""

    def show(self, live: BenchLive) -> None:
        fraction = live.done / live.total if live.total else 0.0
        filled = bar(fraction, BAR_WIDTH).rstrip()
        text = Text(filled, style="green" if live.state == "finished" else "cyan")
        text.append("░" * (BAR_WIDTH - len(filled)), style="dim")
        text.append(f"  {live.done}/{live.total} requests", style="bold")
        text.append("  ·  ")
        text.append(f"{live.failed} failed", style="bold red" if live.failed else "")
        if live.state == "running":
            text.append(f"  ·  {live.in_flight} in flight")
            if live.elapsed is None:
                text.append(f"  ·  warming up ({live.warmup_done} warm-up done)", style="dim")
        if live.elapsed is not None:
            text.append(f"  ·  {live.elapsed:.0f} s measured")
        text.append(f"  ·  {STATE_TEXT[live.state]}", style="bold red" if live.state == "failed" else "dim")
        self.set(text)
