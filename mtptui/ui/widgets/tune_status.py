"""The tune's state in words: what runs now and the ETA while it runs; the verdict, the notes and what the host
runs at the end."""

from __future__ import annotations

from rich.text import Text

from mtptui.ops.tune.state import TuneRun
from mtptui.text import visible
from mtptui.ui.widgets.render_pane import RenderPane


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "ETA after the first arm"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"ETA {minutes} min {secs:02d} s" if minutes else f"ETA {secs} s"


def _now(run: TuneRun) -> str:
    if run.state == "running":
        arm = next((a for a in run.arms if a.name == run.current), None)
        left = sum(a.status in ("pending", "running") for a in run.arms)
        where = f"{arm.label}: {run.phase or 'starting'}" if arm else (run.phase or "starting")
        return f"running {where} · {left} arm(s) left · {eta_text(run.eta_s())}"
    if run.state == "restoring":
        return f"restoring: {run.phase or 'the final restart'}"
    if run.state == "planned":
        return "planned: waiting for the confirmation"
    head = f"aborted ({run.aborted})" if run.aborted else "finished"
    return f"{head}; {run.restore or 'the final restart did not run'}"


def status_text(run: TuneRun | None) -> Text:
    if run is None:
        return Text("s: plan a tune from the known-good profile · escape: back", style="dim")
    text = Text(visible(_now(run)), style="bold")
    if run.verdict:
        text.append("\nverdict: ", style="bold")
        text.append(visible(run.verdict.sentence), style="green" if run.verdict.best else "red")
        for note in run.verdict.notes:
            text.append(f"\n  {visible(note)}", style="yellow")
    return text


class TuneStatus(RenderPane):
    """Repainted by the tune screen on every change, and each second while the ETA counts down."""

    def show(self, run: TuneRun | None) -> None:
        self.set(status_text(run))
