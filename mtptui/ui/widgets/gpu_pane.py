"""Live GPUs pane: one line per GPU from nvidia-smi, polled every 1-2 s (mtptui.ops.gpu_poll).

Utilisation and memory as bars, utilisation's last 45 s as a sparkline (shorter, or left out, where the pane
is narrow), temperature, and power against the power limit; a figure the GPU does not report shows as a dash.
A host without nvidia-smi gets one sentence.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from mtptui.fleet.spark import sparkline
from mtptui.ops.gpu_poll import EVERY_S
from mtptui.remote.gpu import GpuStat
from mtptui.text import visible
from mtptui.ui.format import NONE, bar
from mtptui.ui.gpu_history import GpuHistory
from mtptui.ui.live_host import LiveHost
from mtptui.ui.widgets.render_pane import RenderPane
from mtptui.ui.plain import plain

BAR_WIDTH, SPARK_WIDTH = 10, 30  # 30 polls: 45 s of utilisation
OTHER_COLUMNS_WIDTH, MIN_SPARK = 78, 8  # what the other columns take; a narrower sparkline is left out
HOT_C, WARM_C = 83, 70  # thresholds of the temperature colour (A6000 slowdown is near 90 °C)


def level_style(pct: float | None) -> str:
    if pct is None:
        return "dim"
    return "red" if pct >= 95 else "yellow" if pct >= 80 else "green"


def short_name(name: str) -> str:
    return visible(name.removeprefix("NVIDIA ").strip())


def _pct(value: float | None) -> str:
    return NONE if value is None else f"{value:3.0f} %"


def _memory(gpu: GpuStat) -> Text:
    used, total = gpu.memory_used_mib, gpu.memory_total_mib
    figures = f"{used / 1024:4.1f}/{total / 1024:.0f} GiB" if used is not None and total else NONE
    pct = gpu.memory_pct
    return Text(bar(None if pct is None else pct / 100, BAR_WIDTH), level_style(pct)).append(f" {figures}")


def _temperature(gpu: GpuStat) -> Text:
    c = gpu.temperature_c
    if c is None:
        return Text(NONE, "dim")
    return Text(f"{c:.0f} °C", "red" if c >= HOT_C else "yellow" if c >= WARM_C else "")


def _power(gpu: GpuStat) -> Text:
    draw, limit = gpu.power_w, gpu.power_limit_w
    if draw is None:
        return Text(NONE, "dim")
    return Text(f"{draw:.0f}" + (f"/{limit:.0f} W" if limit else " W"))


def spark_width(pane_width: int) -> int:
    """Polls of history the pane has room for (0: none, on a narrow terminal)."""
    room = min(pane_width - OTHER_COLUMNS_WIDTH, SPARK_WIDTH)
    return room if room >= MIN_SPARK else 0


def gpu_table(history: GpuHistory, spark: int = SPARK_WIDTH) -> Table:
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    table.add_column("gpu", no_wrap=True)
    table.add_column("util", no_wrap=True)
    if spark:
        table.add_column(plain(f"last {spark * EVERY_S:.0f} s"), no_wrap=True)
    table.add_column("memory", no_wrap=True)
    table.add_column("temp", justify="right", no_wrap=True)
    table.add_column("power", justify="right", no_wrap=True)
    for gpu in history.latest:
        util = gpu.utilization_pct
        util_bar = Text(bar(None if util is None else util / 100, BAR_WIDTH), level_style(util))
        recent = sparkline(list(history.utilization.get(gpu.index, ()))[-spark:], top=100) if spark else ""
        cells: list[RenderableType] = [f"{gpu.index} {short_name(gpu.name)}", util_bar.append(f" {_pct(util)}", "")]
        cells += [Text(recent.rjust(spark), "cyan")] if spark else []
        table.add_row(*cells, _memory(gpu), _temperature(gpu), _power(gpu))
    return table


class GpuPane(RenderPane):
    """The dashboard repaints it after every poll; its height follows the number of GPUs."""

    _height = 3  # the height DEFAULT_CSS gives, until the first GPUs are read

    DEFAULT_CSS = """
    GpuPane {
        height: 3;
        padding: 0 1;
        border: round $border;
        border-title-color: $primary;
        border-title-style: bold;
        border-subtitle-color: $foreground 70%;
        background: $surface;
    }
    GpuPane.-down {
        border: round $error;
        border-subtitle-color: $error;
    }
    """

    @staticmethod
    def rows(history: GpuHistory) -> int:
        """Lines of content: a header and one per GPU, or the one sentence."""
        return 1 + len(history.latest) if history.latest else 1

    def show(self, live: LiveHost) -> None:
        history = live.gpus
        height = self.rows(history) + 2
        if height != self._height:  # a relayout only when the number of GPUs changes
            self._height = self.styles.height = height
        self.border_title = "GPUs · nvidia-smi"
        if history.latest:
            self.border_subtitle = plain(f"last poll failed: {history.problem}" if history.stale else
                                         "utilisation · memory · temperature · power")
            self.set(gpu_table(history, spark_width(self.content_size.width)))
        else:
            self.border_subtitle = ""
            sentence = "asking nvidia-smi…" if history.waiting else visible(history.problem or "no GPU")
            self.set(Text(sentence, "dim"))
