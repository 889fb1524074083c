"""The simulated GPU keeps its pace when this machine stalls: a step late by less than a second is caught up.

The simulator stands in for a GPU server, whose speed does not depend on how busy the operator's or the test
machine's CPU is. A stall of the simulator's own process (another program holding the CPU, a slow garbage
collection) must not show as a slower GPU: the scheduler sleeps to absolute deadlines and runs late steps back
to back until it is on time again. Only a stall longer than CATCH_UP_S restarts the schedule from now (then the
server was really away, and a burst of a second's tokens would be a lie the other way).
"""

from __future__ import annotations

import asyncio
import random
import time

from mtptui.sim.scheduler import CATCH_UP_S, Scheduler

STEP_S = 0.02
STEPS = 50  # one second of decode steps


async def _steps_with_a_stall(stall_s: float) -> float:
    """Seconds that STEPS steps of STEP_S take when the process is blocked for ``stall_s`` halfway."""
    scheduler = Scheduler(random.Random(0))
    start = time.monotonic()
    for step in range(STEPS):
        if step == STEPS // 2:
            time.sleep(stall_s)  # the whole process is held, as by another program on a busy CPU
        await scheduler._sleep(STEP_S)
    return time.monotonic() - start


def test_a_stall_of_six_tenths_of_a_second_is_caught_up():
    assert CATCH_UP_S >= 0.6
    elapsed = asyncio.run(_steps_with_a_stall(0.6))
    assert elapsed < STEPS * STEP_S + 0.2, elapsed  # 1.0 s of steps: on time (a lost stall would be 1.6 s)


def test_a_stall_beyond_catch_up_restarts_the_schedule_from_now():
    stall = CATCH_UP_S + 0.3
    elapsed = asyncio.run(_steps_with_a_stall(stall))
    assert elapsed > STEPS * STEP_S + stall - 0.05, elapsed  # the whole stall is lost: no burst of missed steps
