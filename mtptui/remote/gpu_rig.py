"""The GPUs a host has, as a benchmark's rig records them: model, count and driver, from nvidia-smi."""

from __future__ import annotations

from mtptui.remote.shell import Command
from mtptui.remote.transport import Transport

QUERY = ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]
MAX_CHARS = 120  # of a name or a driver version kept (what a host says is stored)


def parse_rig_gpus(text: str) -> dict[str, object] | None:
    """``{"model", "count", "driver"}`` from nvidia-smi's CSV rows (the first GPU's model and driver); None without
    a readable row. A name may hold a comma: the driver is the last field."""
    split = [line.rsplit(",", 1) for line in text.splitlines() if line.count(",") >= 1]
    rows = [(name.strip()[:MAX_CHARS], driver.strip()[:MAX_CHARS]) for name, driver in split if name.strip()]
    if not rows:
        return None
    return {"model": rows[0][0], "count": len(rows), "driver": rows[0][1] or None}


async def query_rig_gpus(transport: Transport) -> dict[str, object] | None:
    """The host's GPUs for a rig, or None when nvidia-smi is missing, fails or lists none."""
    result = await transport.run(Command.of(QUERY, "read the GPUs' model and driver"), timeout=15)
    return parse_rig_gpus(result.out) if result.ok else None
