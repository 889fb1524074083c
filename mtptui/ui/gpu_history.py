"""What the GPU pane draws, kept outside any widget: the latest nvidia-smi figures per GPU and a short history.

Textual-free: the dashboard's handler adds each ``GpuReading`` of the poll (mtptui.ops.gpu_poll); the pane reads.
"""

from __future__ import annotations

from collections import deque

from mtptui.remote.gpu import GpuReading, GpuStat

HISTORY = 40  # polls kept per GPU: about a minute at one poll every 1.5 s


class GpuHistory:
    """Latest GPUs, utilisation history per GPU index (None where it was not reported), the last problem."""

    def __init__(self, keep: int = HISTORY) -> None:
        self.keep = keep
        self.latest: tuple[GpuStat, ...] = ()
        self.problem: str | None = None
        self.utilization: dict[int, deque[float | None]] = {}
        self.readings = 0

    def add(self, reading: GpuReading) -> None:
        self.readings += 1
        self.problem = reading.problem
        if not reading.gpus:
            return
        self.latest = reading.gpus
        for gpu in reading.gpus:
            self.utilization.setdefault(gpu.index, deque(maxlen=self.keep)).append(gpu.utilization_pct)

    @property
    def waiting(self) -> bool:
        """No poll has answered yet."""
        return self.readings == 0

    @property
    def stale(self) -> bool:
        """GPUs were seen, but the last poll failed: the figures shown are the last ones read."""
        return bool(self.latest) and self.problem is not None
