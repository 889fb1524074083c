"""The tune's arms as a table: state (or the phase of the arm in progress), tok/s per concurrency, accept
length, TTFT/TPOT at the first concurrency, canary. The best arm is marked; a failed canary is red."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from mtptui.ops.tune.report import arm_rows
from mtptui.ops.tune.state import TuneRun
from mtptui.text import visible
from mtptui.ui.widgets.tune_plot import arm_color
from mtptui.ui.widgets.render_pane import RenderPane

STATUS_STYLES = {"done": "green", "running": "bold yellow", "refused": "magenta", "failed": "red",
                 "aborted": "red", "pending": "dim"}
CANARY_STYLES = {"pass": "green", "fail": "bold red", "skipped": "yellow"}


def arms_table(run: TuneRun) -> Table:
    header, rows = arm_rows(run)
    first = run.plan.workload.concurrency[0]
    table = Table(box=None, padding=(0, 1), header_style="bold", expand=True, title_justify="left",
                  title=f"output tok/s per concurrency; accept length, TTFT and TPOT (median ms) at c={first}")
    for index, name in enumerate(header):
        table.add_column(name.removesuffix(" tok/s").removesuffix(" ms"), justify="left" if index < 2 else "right",
                         no_wrap=True)
    best = run.verdict.best if run.verdict else None
    for arm, row in zip(run.arms, rows):
        cells = [Text(visible(cell)) for cell in row]
        cells[0].stylize(arm_color(run, arm))
        cells[1].stylize(STATUS_STYLES.get(arm.status, ""))
        cells[-1].stylize(CANARY_STYLES.get(row[-1], ""))
        table.add_row(*cells, style="bold" if arm is best else None)
    return table


class TuneTable(RenderPane):
    """Repainted by the tune screen on every change of the run."""

    def show(self, run: TuneRun | None) -> None:
        self.set(arms_table(run) if run is not None else Text("no tune yet: s plans one (nothing changes before "
                                                              "you confirm)", style="dim"))
