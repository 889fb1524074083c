"""The comparison: this run vs the best earlier run of the same workload (the verdict), vs the run before,
and the launch flags that differ from the baseline."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from mtptui.text import visible
from mtptui.ui.bench_state import BenchLive
from mtptui.ui.widgets.render_pane import RenderPane

VERDICT_STYLE = {"regression": "bold red", "improvement": "bold green", "no-change": "bold",
                 "inconclusive": "yellow", "no-baseline": "dim"}
MAX_FLAGS = 12


def verdict_line(label: str, comparison) -> Text:
    """``vs best earlier: 55.1 tok/s now vs 34.0 before (+62.0 %): improvement (p = …)``, the verdict coloured."""
    text = Text(f"{label}: ", style="bold")
    sentence = visible(comparison.sentence())
    head, sep, tail = sentence.partition(f": {comparison.verdict}")
    text.append(head)
    if sep:
        text.append(": ")
        text.append(comparison.verdict, style=VERDICT_STYLE.get(comparison.verdict, ""))
        text.append(tail)
    return text


def _when(run: dict | None) -> str:
    return str((run or {}).get("recorded_at", "")).replace("T", " ").replace("+00:00", " UTC")


class BenchCompare(RenderPane):
    """Shows the outcome's comparisons; before a run, what it will be compared with."""

    def show(self, live: BenchLive) -> None:
        outcome = live.outcome
        if outcome is None:
            self.set(Text("each run is recorded in the history and compared with the best earlier run of the same "
                          "workload on this host, and with the run before it", style="dim"))
            return
        best = outcome.best
        parts: list = [verdict_line("vs best earlier", best)]
        if best.baseline:
            parts.append(Text(f"  baseline: run {best.baseline.get('id')} of {_when(best.baseline)}, best of "
                              f"{best.before_runs} run(s) of that configuration", style="dim"))
        if best.stale and best.stale != best.reason:
            parts.append(Text(visible(f"  {best.stale}"), style="yellow"))
        if outcome.previous is not None:
            parts.append(verdict_line("vs the run before", outcome.previous))
        parts += self._flags(best.flag_diff)
        self.set(Group(*parts))

    @staticmethod
    def _flags(rows: list) -> list[Text]:
        if not rows:
            return []
        lines = [Text("launch flags now / at the baseline:", style="bold")]
        for name, now, before in rows[:MAX_FLAGS]:
            lines.append(Text(visible(f"  {name}: {now if now is not None else '(unset)'} / "
                                      f"{before if before is not None else '(unset)'}")))
        if len(rows) > MAX_FLAGS:
            lines.append(Text(f"  … and {len(rows) - MAX_FLAGS} more", style="dim"))
        return lines
