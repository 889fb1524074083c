"""The simulated server's GPU load, written for the stand-in ``nvidia-smi`` (mtptui/demo_bin/nvidia-smi).

With $MTPTUI_SIM_GPU_STATE naming a file, the server rewrites it (atomically) every EVERY_S: its pid, the time,
the memory each tensor-parallel rank holds (the CUDA context while starting, then the memory plan its startup
log reports) and how busy it is: ``busy`` (share of recent time with requests running, averaged over ~2 s),
``batch`` (running requests over --max-running-requests) and ``heat`` (``busy`` averaged over ~1 min, which a
GPU's temperature follows). The stand-in turns these into utilisation, power and temperature. The file goes when
the server stops.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from pathlib import Path
from typing import Callable, Protocol, Sequence, TypedDict

ENV = "MTPTUI_SIM_GPU_STATE"
EVERY_S = 0.5
BUSY_S, HEAT_S = 2.0, 60.0  # time constants of the averages

Load = Callable[[], tuple[int, int]]  # (running, queued) requests


class GpuSample(TypedDict):
    """One write of the state file (the fields the stand-in nvidia-smi reads)."""

    pid: int
    written: float
    memory_used_mib: list[float]
    busy: float
    batch: float
    heat: float


class RankFree(Protocol):
    """What one rank's memory plan says: the CUDA context, free memory at start and after the startup."""

    @property
    def baseline_gb(self) -> float: ...

    @property
    def begin(self) -> float: ...

    @property
    def final(self) -> float | None: ...


class MemoryPlanned(Protocol):
    @property
    def ranks(self) -> Sequence[RankFree]: ...


class GpuPlan(Protocol):
    """A simulated server's boot facts the state file needs (any engine's)."""

    @property
    def gpu_mem_gb(self) -> float: ...

    @property
    def max_running(self) -> int: ...

    @property
    def memory(self) -> MemoryPlanned: ...


def rank_memory_mib(boot: GpuPlan, up: bool = True) -> list[float]:
    """MiB each rank holds: once the server is up, the GPU's memory less what the startup left free; before,
    the CUDA context alone (the startup's phases are not followed)."""
    if not up:
        return [round(rank.baseline_gb * 1024) for rank in boot.memory.ranks]
    total = boot.gpu_mem_gb
    return [round((total - (rank.final if rank.final is not None else rank.begin)) * 1024)
            for rank in boot.memory.ranks]


def smooth(previous: float, sample: float, dt: float, tau: float) -> float:
    """One step of an exponential average with time constant ``tau``."""
    weight = 1 - math.exp(-dt / tau)
    return previous + (sample - previous) * weight


class GpuStateWriter:
    """Rewrites the state file until cancelled; ``load`` is None until the scheduler runs (startup: idle)."""

    def __init__(self, path: Path, boot: GpuPlan, clock: Callable[[], float] = time.time) -> None:
        self.path, self.boot, self.clock = path, boot, clock
        self.load: Load | None = None
        self.busy = self.batch = self.heat = 0.0
        self._last: float | None = None

    @classmethod
    def from_env(cls, boot: GpuPlan) -> "GpuStateWriter | None":
        path = os.environ.get(ENV)
        return cls(Path(path), boot) if path else None

    def sample(self) -> GpuSample:
        now = self.clock()
        dt = EVERY_S if self._last is None else max(now - self._last, 1e-3)
        self._last = now
        running, queued = self.load() if self.load is not None else (0, 0)
        working = 1.0 if running or queued else 0.0
        self.busy = smooth(self.busy, working, dt, BUSY_S)
        self.batch = smooth(self.batch, min(running / max(self.boot.max_running, 1), 1.0), dt, BUSY_S)
        self.heat = smooth(self.heat, self.busy, dt, HEAT_S)
        memory = rank_memory_mib(self.boot, up=self.load is not None)
        return {"pid": os.getpid(), "written": now, "memory_used_mib": memory,
                "busy": round(self.busy, 4), "batch": round(self.batch, 4), "heat": round(self.heat, 4)}

    def write(self) -> None:
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            temporary.write_text(json.dumps(self.sample()), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError:
            pass  # a state file that cannot be written only leaves the stand-in's GPUs idle

    async def run(self) -> None:
        try:
            while True:
                self.write()
                await asyncio.sleep(EVERY_S)
        finally:
            self.remove()

    def remove(self) -> None:
        """The server is ending: the stand-in nvidia-smi shows idle GPUs again."""
        try:
            self.path.unlink()
        except OSError:
            pass
