"""What SGLang's argument stage asks about a host's GPUs (count, memory, compute capability), from nvidia-smi.

nvidia-smi reads the driver through NVML: no CUDA context, no GPU memory. The host check
(mtptui.ops.host_lint) hands these facts to the runner's stand-ins instead of letting torch ask the GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.remote.shell import Command
from mtptui.remote.transport import Transport

QUERY = ["nvidia-smi", "--query-gpu=name,memory.total,compute_cap", "--format=csv,noheader,nounits"]


@dataclass(frozen=True)
class GpuFacts:
    """The GPUs a server would see: how many, memory of the smallest (GB), capability and name of the first.

    ``source`` says where they come from ("nvidia-smi" or "host file"); None for what is not known.
    """

    count: int
    memory_gb: float | None
    capability: str | None
    name: str | None
    source: str

    def runner_args(self) -> list[str]:
        """The runner's options for these facts (what is unknown keeps the runner's default)."""
        args = ["--gpus", str(self.count)]
        if self.memory_gb is not None:
            args += ["--gpu-memory-gb", repr(self.memory_gb)]
        if self.capability is not None:
            args += ["--capability", self.capability]
        return args + (["--gpu-name", self.name] if self.name else [])

    def to_json(self) -> dict[str, object]:
        return {"count": self.count, "memory_gb": self.memory_gb, "capability": self.capability, "name": self.name,
                "from": self.source}

    def __str__(self) -> str:
        what = f"{self.count} × {self.name or 'GPU'}"
        memory = f"{self.memory_gb:.1f} GB" if self.memory_gb is not None else "memory unknown"
        capability = f"compute capability {self.capability or '8.6 assumed'}"
        return f"{what}, {memory}, {capability} ({self.source})"


def _row(line: str) -> tuple[str, float, str] | None:
    """``name, memory.total (MiB), compute_cap``; a name may hold a comma, unreadable rows are None."""
    parts = [part.strip() for part in line.split(",")]
    if len(parts) < 3:
        return None
    try:
        memory = float(parts[-2])
        major, minor = (int(word) for word in parts[-1].split("."))
    except ValueError:
        return None
    return ", ".join(parts[:-2]), memory, f"{major}.{minor}"


def visible_rows(rows: list[tuple[str, float, str]], visible: str | None) -> list[tuple[str, float, str]]:
    """The rows a server with ``CUDA_VISIBLE_DEVICES=visible`` sees (indices select; UUIDs only count)."""
    if visible is None:
        return rows
    entries = [entry.strip() for entry in visible.split(",") if entry.strip()]
    if all(entry.isdigit() and int(entry) < len(rows) for entry in entries):
        return [rows[int(entry)] for entry in entries]
    return rows[:len(entries)]


def parse_facts(text: str, visible: str | None = None) -> GpuFacts | None:
    """Facts from nvidia-smi's CSV (see QUERY); None without a readable GPU."""
    rows = visible_rows([row for line in text.splitlines() if (row := _row(line))], visible)
    if not rows:
        return None
    return GpuFacts(len(rows), min(memory for _, memory, _ in rows) / 1024, rows[0][2], rows[0][0], "nvidia-smi")


async def query_gpu_facts(transport: Transport, visible: str | None = None) -> GpuFacts | None:
    """The host's GPU facts, or None when nvidia-smi is missing, fails or lists no GPU."""
    result = await transport.run(Command.of(QUERY, "read the GPUs' memory and compute capability"), timeout=15)
    return parse_facts(result.out, visible) if result.ok else None
