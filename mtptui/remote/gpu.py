"""Per-GPU figures from nvidia-smi (utilisation, memory, temperature, power), read through the host's transport.

``read_gpus`` tells a host without nvidia-smi, or whose driver fails, from one with GPUs, in one sentence;
``query_gpus`` keeps the older None-when-unreadable answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.remote.shell import Command
from mtptui.remote.transport import Transport

FIELDS = ("index", "name", "utilization.gpu", "memory.used", "memory.total", "temperature.gpu", "power.draw",
          "power.limit")
QUERY = ["nvidia-smi", f"--query-gpu={','.join(FIELDS)}", "--format=csv,noheader,nounits"]
NOT_FOUND_STATUS = 127  # what a POSIX shell exits with for a command it cannot find
UNITS = (" MiB", " %", " W", " C")  # printed after numbers when ``nounits`` is left out
QUERY_OUTPUT_LIMIT = 1048576  # a few hundred bytes a GPU: more is a driver printing garbage, cut off on the host


def query_command() -> Command:
    """QUERY as a command for a host, its output bounded."""
    return Command.of(QUERY, "query the GPUs", output_limit=QUERY_OUTPUT_LIMIT)


@dataclass(frozen=True)
class GpuStat:
    """One GPU: memory in MiB (as nvidia-smi reports it), utilisation in percent, temperature in °C and power in
    W; None for a figure the GPU or its driver does not report (``[N/A]``, ``[Not Supported]``)."""

    index: int
    name: str
    memory_used_mib: float | None
    memory_total_mib: float | None
    utilization_pct: float | None
    temperature_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None

    @property
    def memory_pct(self) -> float | None:
        if self.memory_used_mib is None or not self.memory_total_mib:
            return None
        return 100 * self.memory_used_mib / self.memory_total_mib


@dataclass(frozen=True)
class GpuReading:
    """One poll: the GPUs, or why there are none (``problem`` is one sentence for the operator)."""

    gpus: tuple[GpuStat, ...] = ()
    problem: str | None = None
    missing: bool = False  # the host has no nvidia-smi at all (asking again soon will not change that)


def _number(text: str) -> float | None:
    """nvidia-smi prints "[N/A]", "[Not Supported]", "[Unknown Error]" for values it cannot read; a unit may
    follow the number when ``nounits`` was not given."""
    text = text.strip()
    for unit in UNITS:
        text = text.removesuffix(unit)
    try:
        return float(text)
    except ValueError:
        return None


def parse_gpus(text: str) -> list[GpuStat]:
    """Rows in the order of FIELDS; a name may hold a comma; malformed rows (and a header) are skipped."""
    numbers = len(FIELDS) - 2
    gpus = []
    for line in text.splitlines():
        parts = [part.strip() for part in line.split(",")]
        if len(parts) < len(FIELDS) or not parts[0].isdigit():
            continue
        util, used, total, temperature, power, limit = (_number(p) for p in parts[-numbers:])
        name = ", ".join(parts[1:-numbers])
        gpus.append(GpuStat(int(parts[0]), name, used, total, util, temperature, power, limit))
    return gpus


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def reading_of(status: int | None, out: str, err: str) -> GpuReading:
    """What one run of QUERY says: the GPUs, or one sentence on why there are none."""
    if status == NOT_FOUND_STATUS:
        return GpuReading(problem="this host has no nvidia-smi on the PATH of its SSH sessions: no live GPU "
                                  "figures", missing=True)
    if status != 0:
        why = _last_line(err) or _last_line(out) or f"exit status {status}"
        return GpuReading(problem=f"nvidia-smi fails: {why}")
    gpus = parse_gpus(out)
    return GpuReading(tuple(gpus)) if gpus else GpuReading(problem="nvidia-smi lists no GPU")


async def read_gpus(transport: Transport, timeout_s: float = 15) -> GpuReading:
    """One poll of the host's GPUs (a RemoteError when the transport itself fails)."""
    result = await transport.run(query_command(), timeout=timeout_s)
    return reading_of(result.exit_status, result.out, result.err)


async def query_gpus(transport: Transport) -> list[GpuStat] | None:
    """The host's GPUs, or None when nvidia-smi is missing or fails."""
    reading = await read_gpus(transport)
    return list(reading.gpus) if reading.gpus else None
