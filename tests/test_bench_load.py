"""Load shapes: the concurrency cap holds, every request is sent once, Poisson arrivals are seeded."""

from __future__ import annotations

import asyncio
import statistics

import pytest

from mtptui.bench.load import LoadPlan, arrival_offsets, fire


async def _track(count: int, concurrency: int, offsets: list[float]) -> tuple[list[int], int]:
    sent, in_flight, peak = [], 0, 0

    async def send(index: int) -> None:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.002)
        sent.append(index)
        in_flight -= 1

    await fire(count, concurrency, offsets, send)
    return sent, peak


@pytest.mark.parametrize("concurrency", [1, 3, 8])
async def test_concurrency_cap_and_each_request_once(concurrency: int) -> None:
    sent, peak = await _track(20, concurrency, [0.0] * 20)
    assert sorted(sent) == list(range(20)) and peak == concurrency


def test_poisson_offsets_are_seeded_and_have_the_right_mean_gap() -> None:
    a, b = arrival_offsets(2000, 50.0, seed=7), arrival_offsets(2000, 50.0, seed=7)
    assert a == b and a != arrival_offsets(2000, 50.0, seed=8)
    gaps = [y - x for x, y in zip(a, a[1:])]
    assert a[0] == 0.0 and all(g >= 0 for g in gaps)
    assert statistics.mean(gaps) == pytest.approx(1 / 50.0, rel=0.1)
    assert arrival_offsets(3, None, seed=0) == [0.0, 0.0, 0.0]


async def test_arrivals_follow_their_schedule() -> None:
    loop = asyncio.get_running_loop()
    t0, starts = loop.time(), {}

    async def send(index: int) -> None:
        starts[index] = loop.time() - t0

    await fire(3, 3, [0.0, 0.05, 0.10], send)
    assert starts[0] <= starts[1] <= starts[2]
    assert starts[1] >= 0.049 and starts[2] >= 0.099  # never before its arrival time


def test_plan_rejects_nonsense() -> None:
    for bad in ({"requests": 0}, {"requests": 1, "concurrency": 0}, {"requests": 1, "rate": 0.0},
                {"requests": 1, "warmup": -1}):
        with pytest.raises(ValueError):
            LoadPlan(**bad)
