"""The gateway's workers for the dashboard: ``GET /workers`` every few seconds through the host's session.

A feed source (see mtptui.ops.feed.items.merge_feeds), run only for a host whose file names a ``[gateway]``: it emits
a ``GatewayReading`` whenever what the gateway says changes (a worker's status, health or load, or the problem
that keeps it from answering), so a quiet gateway costs no repaint.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from mtptui.errors import UserError
from mtptui.gateway.generation import NAMES
from mtptui.gateway.workers import Worker

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession

EVERY_S = 3.0
DEADLINE_S = 5.0


@dataclass(frozen=True)
class GatewayReading:
    """What the gateway said at one poll: its workers and which is this host's, or why it said nothing."""

    gateway: str
    workers: tuple[Worker, ...] = ()
    mine: str | None = None  # this host's worker's URL, when the gateway lists it
    generation: str | None = None  # NAMES' words for its router API generation
    problem: str | None = None


class GatewayPoll:
    """``await GatewayPoll(session)(emit)`` runs until cancelled."""

    def __init__(self, session: HostSession, *, every_s: float = EVERY_S) -> None:
        self.session, self.every_s = session, every_s
        self._said: GatewayReading | None = None

    async def read(self) -> GatewayReading:
        from mtptui.gateway.http import GatewayError
        from mtptui.ops.gateway import gateway_config, open_gateway, this_worker

        label = gateway_config(self.session.host).url
        try:
            async with await open_gateway(self.session, deadline_s=DEADLINE_S) as gateway:
                generation = NAMES[await gateway.generation()]
                workers = tuple(await gateway.workers())
                try:
                    mine: str | None = (await this_worker(gateway, self.session.host, list(workers))).url
                except GatewayError as exc:
                    return GatewayReading(label, workers, None, generation, str(exc))
        except UserError as exc:
            return GatewayReading(label, problem=str(exc))
        return GatewayReading(label, workers, mine, generation)

    async def __call__(self, emit: Callable[[GatewayReading], Awaitable[None]]) -> None:
        while True:
            reading = await self.read()
            if reading != self._said:
                self._said = reading
                await emit(reading)
            await asyncio.sleep(self.every_s)
