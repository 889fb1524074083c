"""The tune's state in words: what runs now and the ETA while it runs; the verdict, the notes, the adaptive
proposal when there is one (what to set, and whether the tune measured it) and what the host runs at the end."""

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


def proposal_lines(run: TuneRun) -> list[str]:
    """The adaptive proposal in two lines: what to set, then whether its arm was measured (and how it did)."""
    from mtptui.ops.tune.adaptive import NAME

    proposal = run.plan.proposal
    if proposal is None:
        return []
    steps = proposal.profile.flags.get("speculative-num-steps")
    candidates = ",".join(map(str, proposal.candidates))
    where = ", ".join(f"c={c}: {s}" for c, s in proposal.best.items())
    head = f"adaptive: set --speculative-adaptive from steps {steps}, candidates {candidates} (best steps {where})"
    if not proposal.runnable:
        return [head, "  not measured: it needs --speculative-adaptive-config with "
                      f"candidate steps {','.join(map(str, proposal.ladder))}"]
    arm = next((a for a in run.arms if a.name == NAME), None)
    if arm is None:
        return [head, "  not measured (the adaptive arm was off)"]
    if arm.status != "done":
        return [head, f"  its arm: {arm.status}" + (f" ({arm.reason})" if arm.reason else "")]
    tok_s = ", ".join(f"c={r.concurrency}: {r.output_tok_s:.1f} tok/s" for r in arm.results
                      if r.output_tok_s is not None)
    return [head, f"  measured as one more arm: {tok_s}"]


def engine_steps(run: TuneRun) -> list[str]:
    """A tune across engines, as steps: the engines in the order they run, back to the one kept, and each switch
    made so far (one engine's server stopped before the other's starts)."""
    from mtptui.engines.registry import engine

    engines = run.plan.engines
    if len(engines) < 2:
        return []
    order = " → ".join(engine(name).label for name in [*engines, run.plan.original.engine])
    lines = [f"engines, one at a time: {order} (the last: the original, or the best arm with keep best)"]
    return lines + [f"  switch {index}: {step}" for index, step in enumerate(run.switches, 1)]


def ladder_lines(run: TuneRun) -> list[str]:
    ladder = run.ladder_json()
    return [f"ladder: {ladder['sentence']}", "  proposed, not measured"] if ladder else []


def status_text(run: TuneRun | None, adaptive: bool = False, across: str | None = None) -> Text:
    """``adaptive``: whether the next tune measures the adaptive arm; ``across``: the arms of the next tune when
    it runs across engines (both said while no tune has run)."""
    if run is None:
        if across is not None:
            return Text(visible(f"s: plan a tune across engines, arms {across} · e: the grid instead · escape: "
                                f"back"), style="dim")
        arm = "on" if adaptive else "off"
        return Text(f"s: plan a tune from the known-good profile · m: adaptive arm {arm} · escape: back",
                    style="dim")
    text = Text(visible(_now(run)), style="bold")
    for line in engine_steps(run):
        text.append(f"\n{visible(line)}", style="magenta")
    if run.verdict:
        text.append("\nverdict: ", style="bold")
        text.append(visible(run.verdict.sentence), style="green" if run.verdict.best else "red")
        for note in run.verdict.notes:
            text.append(f"\n  {visible(note)}", style="yellow")
    for line in proposal_lines(run) + ladder_lines(run):
        text.append(f"\n{visible(line)}", style="cyan")
    return text


class TuneStatus(RenderPane):
    """Repainted by the tune screen on every change, and each second while the ETA counts down."""

    def show(self, run: TuneRun | None, adaptive: bool = False, across: str | None = None) -> None:
        self.set(status_text(run, adaptive, across))
