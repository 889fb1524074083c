"""GPU memory and utilisation per GPU from nvidia-smi, when the host has it (None when it does not)."""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.remote.shell import Command
from mtptui.remote.transport import Transport

QUERY = ["nvidia-smi", "--query-gpu=index,name,memory.used,memory.total,utilization.gpu",
         "--format=csv,noheader,nounits"]


@dataclass(frozen=True)
class GpuStat:
    """One GPU: memory in MiB (as nvidia-smi reports it), utilisation in percent (None when not available)."""

    index: int
    name: str
    memory_used_mib: float | None
    memory_total_mib: float | None
    utilization_pct: float | None

    @property
    def memory_used_gb(self) -> float | None:
        return None if self.memory_used_mib is None else self.memory_used_mib / 1024


def _number(text: str) -> float | None:
    """nvidia-smi prints "[N/A]" or "[Not Supported]" for values it cannot read."""
    try:
        return float(text.strip())
    except ValueError:
        return None


def parse_gpus(text: str) -> list[GpuStat]:
    """Rows of ``index, name, memory.used, memory.total, utilization.gpu``; malformed rows are skipped."""
    gpus = []
    for line in text.splitlines():
        parts = [part.strip() for part in line.split(",")]
        if len(parts) < 5 or not parts[0].isdigit():
            continue
        name = ", ".join(parts[1:-3])  # a name could hold a comma
        used, total, util = (_number(p) for p in parts[-3:])
        gpus.append(GpuStat(int(parts[0]), name, used, total, util))
    return gpus


async def query_gpus(transport: Transport) -> list[GpuStat] | None:
    """The host's GPUs, or None when nvidia-smi is missing or fails."""
    result = await transport.run(Command.of(QUERY, "query the GPUs"), timeout=15)
    if not result.ok:
        return None
    return parse_gpus(result.out)
