"""The comparison: this run vs the best earlier run of the same workload (the verdict), vs the run before,
and the launch flags that differ from the baseline. The verdict is a sentence; ``i`` adds the statistics."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from mtptui.bench.compare import Comparison
from mtptui.bench.verdict_text import flag_name, flag_value, statistics_line, verdict_sentence
from mtptui.config import HostConfig
from mtptui.ops.bench_baseline import baseline_name
from mtptui.text import visible
from mtptui.ui.bench_state import BenchLive
from mtptui.ui.widgets.render_pane import RenderPane

VERDICT_STYLE = {"regression": "bold red", "improvement": "bold green", "no-change": "bold",
                 "inconclusive": "yellow", "no-baseline": "dim"}
MAX_FLAGS = 12


def verdict_line(label: str, comparison: Comparison) -> Text:
    """``vs best earlier: 34.3 vs 53.9 tok/s, 36 % slower, outside the noise``, coloured by the verdict."""
    text = Text(f"{label}: ", style="bold")
    text.append(visible(verdict_sentence(comparison)), style=VERDICT_STYLE.get(comparison.verdict, ""))
    return text


def statistics(comparison: Comparison) -> Text:
    return Text(visible(f"  statistics: {statistics_line(comparison)}"), style="dim")


class BenchCompare(RenderPane):
    """Shows the outcome's comparisons; before a run, what it will be compared with."""

    def show(self, live: BenchLive, host: HostConfig | None = None, details: bool = False) -> None:
        """``host`` names the baseline by its profile; ``details`` adds the statistics behind each verdict."""
        outcome = live.outcome
        if outcome is None:
            self.set(Text("each run is recorded in the history and compared with the best earlier run of the same "
                          "workload on this host, and with the run before it (i shows the statistics)", style="dim"))
            return
        best = outcome.best
        parts: list[RenderableType] = [verdict_line("vs best earlier", best)]
        if details:
            parts.append(statistics(best))
        if best.baseline:
            parts.append(Text(visible(f"  baseline: {baseline_name(host, best.baseline)}, best of "
                                      f"{best.before_runs} run(s) of that configuration"), style="dim"))
        if best.stale and best.stale != best.reason:
            parts.append(Text(visible(f"  {best.stale}"), style="yellow"))
        if outcome.previous is not None:
            parts.append(verdict_line("vs the run before", outcome.previous))
            if details:
                parts.append(statistics(outcome.previous))
        if outcome.steps is not None:
            parts.append(Text.assemble(("step cost: ", "bold"), (visible(outcome.steps.sentence()),
                                                                  "bold red" if outcome.steps.slower else "")))
        baseline = best.baseline["fingerprint"] if best.baseline else {}
        parts += self._flags(best.flag_diff, baseline.get("engine"))
        if not details:
            parts.append(Text("i: the statistics behind the verdict", style="dim"))
        self.set(Group(*parts))

    @staticmethod
    def _flags(rows: list[tuple[str, Any, Any]], engine: str | None) -> list[Text]:
        if not rows:
            return []
        lines = [Text("launch flags now / at the baseline:", style="bold")]
        for name, now, before in rows[:MAX_FLAGS]:
            lines.append(Text(visible(f"  {flag_name(name, engine)}: {flag_value(now)} / {flag_value(before)}")))
        if len(rows) > MAX_FLAGS:
            lines.append(Text(f"  … and {len(rows) - MAX_FLAGS} more", style="dim"))
        return lines
