"""Startup pacing of a simulated server: realistic durations divided by ``--speed``, with seeded jitter.

Durations printed inside log messages (``elapsed=``, tqdm timers) stay the realistic ones; only the waiting
between lines is divided. Engine-neutral (both personalities' startup logs use it).
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Callable

from mtptui.sim.logfmt import shard_bar


@dataclass
class Pacer:
    """Sleeps realistic durations divided by ``speed``, with a little seeded jitter."""

    speed: float
    rng: random.Random
    total: float = 0.0  # realistic seconds slept so far (what the startup took on the real host)

    def jitter(self, seconds: float) -> float:
        return seconds * self.rng.uniform(0.93, 1.07)

    async def sleep(self, seconds: float) -> None:
        self.total += max(0.0, seconds)
        await asyncio.sleep(max(0.0, seconds) / max(self.speed, 1e-6))


async def shard_progress(pace: Pacer, refresh: Callable[[str], None], desc: str, total: int, loaded: int,
                         per_shard_s: float) -> float:
    """The checkpoint-shard bar, refreshed as each of the first ``loaded`` shards of ``total`` loads (the bar's
    own form: mtptui.sim.logfmt.shard_bar); the realistic seconds it took."""
    elapsed = 0.0
    refresh(shard_bar(desc, 0, total, 0.0))
    for done in range(1, loaded + 1):
        step = pace.jitter(per_shard_s)
        await pace.sleep(step)
        elapsed += step
        refresh(shard_bar(desc, done, total, elapsed))
    return elapsed
