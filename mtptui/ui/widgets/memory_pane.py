"""GPU memory pane: one row per rank (weights, MTP head, KV target/draft, mamba, graphs, available), with a
bar of how the GPU's memory is split, and nvidia-smi's figures when the host reports them: the GPU pane's own
poll (``LiveHost.gpus``), so the two panes never show two different readings."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mtptui.ops.feed.items import GpuStat
from mtptui.engines.sglang.state import RankMemory
from mtptui.text import visible
from mtptui.ui.format import gb, number
from mtptui.ui.live_host import LiveHost
from mtptui.ui.widgets.render_pane import RenderPane

COLUMNS = ("rank", "weights", "MTP head", "KV target", "KV draft", "mamba", "graphs", "avail")
COMPACT_COLUMNS = ("rank", "weights", "KV", "avail")  # KV: target and draft together
FULL_WIDTH = 90  # content columns the full table needs; below it the pane is compact
PARTS = (("weights", "weights_gb", "dodger_blue2"), ("MTP head", "draft_weights_gb", "medium_purple"),
         ("KV", "kv_gb", "dark_orange"), ("draft KV", "draft_kv_gb", "light_salmon1"),
         ("mamba", "mamba_gb", "yellow3"), ("graphs", "graphs_gb", "green3"))
OTHER_COLOR, FREE_COLOR = "grey50", "grey30"
BAR_WIDTH = 16


def usage_bar(rank: RankMemory, gpu_gb: float | None, width: int = BAR_WIDTH) -> Text:
    """The rank's memory as one stacked bar: each part in its color, then memory the log does not account
    for (CUDA context, buffers) when the GPU size is known, then what is available."""
    parts = [(getattr(rank, attr) or 0.0, color) for _, attr, color in PARTS]
    known = sum(value for value, _ in parts)
    avail = rank.avail_gb or 0.0
    total = max(gpu_gb or 0.0, known + avail)
    if total <= 0:
        return Text()
    parts.append((total - known - avail, OTHER_COLOR))
    text, edge = Text(), 0.0
    for value, color in parts:
        start = round(edge)
        edge += value / total * width
        text.append("█" * (round(edge) - start), color)
    text.append("░" * (width - round(edge)), FREE_COLOR)
    if rank.avail_gb is None:  # the log says what it put there, not what is left (vLLM): used is at least that
        return text.append(f" ≥{known:.1f}/{total:.0f}")
    return text.append(f" {total - avail:.1f}/{total:.0f}")


def legend(with_other: bool) -> Text:
    text = Text()
    for label, _, color in PARTS + ((("other", "", OTHER_COLOR),) if with_other else ()):
        text.append("█", color)
        text.append(f" {label}  ", "dim")
    return text.append("░", FREE_COLOR).append(" available", "dim")


class MemoryPane(RenderPane):
    """GB per GPU from the startup log; in a narrow pane, fewer columns and no legend."""

    live: LiveHost | None = None

    def show(self, live: LiveHost) -> None:
        self.live = live
        self.set(self.content(live))

    def on_resize(self) -> None:
        if self.live is not None:
            self.show(self.live)

    @property
    def compact(self) -> bool:
        return 0 < self.content_size.width < FULL_WIDTH

    @staticmethod
    def rows(live: LiveHost) -> int:
        """Lines the pane's content takes: header, ranks, legend and note (or the waiting line), GPUs."""
        ranks = len(live.server.memory.ranks)
        return 1 + ranks + (2 if ranks else 1) + len(live.gpus.latest)

    def content(self, live: LiveHost) -> Group:
        columns = COMPACT_COLUMNS if self.compact else COLUMNS
        table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        for index, name in enumerate(columns + ("used / total GB",)):
            table.add_column(name, justify="left" if index in (0, len(columns)) else "right", no_wrap=True)
        ranks = live.server.memory.ranks
        gpu_gb = live.host.gpu_memory_gb if live.host else None
        for label, rank in ranks.items():
            table.add_row(label, *self._figures(rank), usage_bar(rank, gpu_gb, BAR_WIDTH // 2 if self.compact
                                                                  else BAR_WIDTH))
        parts: list[RenderableType] = [table]
        if not ranks:
            parts.append(Text("waiting for the startup log (weights, pools, graphs)", "dim"))
        else:
            if not self.compact:
                parts.append(legend(gpu_gb is not None))
            parts.append(Text(self._note(live), "dim", no_wrap=True, overflow="ellipsis"))
        parts.extend(_gpu_line(gpu) for gpu in live.gpus.latest)
        return Group(*parts)

    def _figures(self, rank: RankMemory) -> tuple[str, ...]:
        if self.compact:
            kv = None if rank.kv_gb is None else rank.kv_gb + (rank.draft_kv_gb or 0.0)
            return gb(rank.weights_gb), gb(kv), gb(rank.avail_gb)
        return (gb(rank.weights_gb), gb(rank.draft_weights_gb), gb(rank.kv_gb), gb(rank.draft_kv_gb),
                gb(rank.mamba_gb), gb(rank.graphs_gb), gb(rank.avail_gb))

    @staticmethod
    def _note(live: LiveHost) -> str:
        first = next(iter(live.server.memory.ranks.values()))
        capacity = live.server.capacity or {}
        pool = first.kv_tokens or capacity.get("max_total_num_tokens")  # an engine that logs it once, not per rank
        tokens = f" · KV pool {number(pool)} tokens" if pool else ""
        gpu = f" of {live.host.gpu_memory_gb:g}" if live.host and live.host.gpu_memory_gb else ""
        return f"GB per GPU{gpu} · {visible(first.model_type or 'model')}{tokens}"


def _gpu_line(gpu: GpuStat) -> Text:
    used, total = (f"{v / 1024:.1f}" if v is not None else "?" for v in (gpu.memory_used_mib, gpu.memory_total_mib))
    util = f" · util {gpu.utilization_pct:g} %" if gpu.utilization_pct is not None else ""
    return Text(visible(f"nvidia-smi GPU{gpu.index} {gpu.name}: {used} / {total} GiB{util}"), no_wrap=True,
                overflow="ellipsis")
