"""Load shapes: N requests behind a concurrency cap, all at once or with seeded Poisson arrivals."""

from __future__ import annotations

import asyncio
import random
from dataclasses import asdict, dataclass
from typing import Any, Awaitable, Callable


@dataclass(frozen=True)
class LoadPlan:
    """How requests are fired.

    Args:
        requests: measured requests.
        concurrency: at most this many in flight.
        warmup: requests run (and drained) before the measured ones; their results are dropped.
        rate: mean arrivals per second (Poisson, exponential gaps) or None to send as fast as slots free up.
        seed: seeds the arrival gaps, so a run can be repeated exactly.
    """

    requests: int
    concurrency: int = 1
    warmup: int = 1
    rate: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.requests < 1 or self.concurrency < 1 or self.warmup < 0:
            raise ValueError("requests and concurrency must be at least 1, warmup at least 0")
        if self.rate is not None and self.rate <= 0:
            raise ValueError("rate must be positive")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def arrival_offsets(count: int, rate: float | None, seed: int) -> list[float]:
    """Dispatch times in seconds from the start: all 0 without a rate, else cumulative exponential gaps."""
    if rate is None:
        return [0.0] * count
    rng = random.Random(seed)
    offsets, t = [], 0.0
    for _ in range(count):
        offsets.append(t)
        t += rng.expovariate(rate)
    return offsets


async def fire(count: int, concurrency: int, offsets: list[float],
               send: Callable[[int], Awaitable[None]]) -> None:
    """Call `send(i)` for i in 0..count-1, starting each at its offset, never more than `concurrency` at once.

    Arrivals follow their schedule whatever the cap (as in sglang's bench): a request that arrives while every
    slot is taken waits for one. `send` must not raise for a failed request.
    """
    slots = asyncio.Semaphore(concurrency)
    loop = asyncio.get_running_loop()
    t0 = loop.time()

    async def one(index: int) -> None:
        async with slots:
            await send(index)

    async with asyncio.TaskGroup() as group:
        for index in range(count):
            delay = t0 + offsets[index] - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            group.create_task(one(index))
