"""Live GPU figures for the dashboard: nvidia-smi every second or two through the host session's transport.

A feed source (see mtptui.ops.feed.items.merge_feeds): it emits a ``GpuReading`` after every poll that found GPUs,
and a reading with a problem only when the problem is new, so a host without nvidia-smi (or with a broken
driver, or a dropped connection) is reported once, not at every poll. A host without nvidia-smi is asked again
only every ``missing_every_s`` (it may be installed meanwhile).
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

from mtptui.errors import UserError
from mtptui.remote.gpu import GpuReading, read_gpus
from mtptui.remote.transport import Transport

EVERY_S = 1.5
MISSING_EVERY_S = 60.0


class GpuPoll:
    """``await GpuPoll(transport)(emit)`` runs until cancelled."""

    def __init__(self, transport: Transport, *, every_s: float = EVERY_S,
                 missing_every_s: float = MISSING_EVERY_S) -> None:
        self.transport = transport
        self.every_s, self.missing_every_s = every_s, missing_every_s
        self._said: str | None = None  # the problem last emitted

    async def read(self) -> GpuReading:
        try:
            return await read_gpus(self.transport, timeout_s=max(self.every_s * 4, 10.0))
        except UserError as exc:
            return GpuReading(problem=f"cannot read the GPUs: {exc}")

    def worth_saying(self, reading: GpuReading) -> bool:
        """GPUs always; a problem only when it differs from the one said last."""
        if reading.gpus:
            self._said = None
            return True
        new = reading.problem != self._said
        self._said = reading.problem
        return new

    async def __call__(self, emit: Callable[[GpuReading], Awaitable[None]]) -> None:
        while True:
            reading = await self.read()
            if self.worth_saying(reading):
                await emit(reading)
            await asyncio.sleep(self.missing_every_s if reading.missing else self.every_s)
