"""The demo's background load against the simulated SGLang's bad redeploy (one running request at a time): it keeps
a 512-token answer streaming, and a pause lets go of it at once, so a benchmark started in the demo is not queued
behind the demo's own request (the server aborts it when the stream closes, as SGLang does)."""

from __future__ import annotations

import asyncio
import time

import httpx

from mtptui.demo.load import DemoLoad
from tests.simserver import sim_redeploy  # noqa: F401  (the module's server)


async def _ignore(item) -> None:
    pass


def _aborted(url: str) -> float:
    """The requests the server counts as aborted (its gauges of running requests move only at log intervals)."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("sglang:num_aborted_requests_total"))


def _prefills(sim) -> int:
    return sim.log_text().count("Prefill batch")


async def _until(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.05)


async def test_a_pause_drops_the_request_in_flight_and_a_resume_starts_another(sim_redeploy) -> None:  # noqa: F811
    sim, prefills = sim_redeploy, _prefills(sim_redeploy)
    load = DemoLoad(sim.url, pause_s=0.1, retry_s=0.1)
    task = asyncio.create_task(load(_ignore))
    try:
        await _until(lambda: _prefills(sim) > prefills, "the load's request prefilled")
        aborted = _aborted(sim.url)
        load.paused = True
        await _until(lambda: _aborted(sim.url) == aborted + 1, "the request aborted by the server")
        assert (load.abandoned, load.completed) == (1, 0)
        with httpx.Client(timeout=60) as client:
            reply = client.post(f"{sim.url}/v1/chat/completions", json={
                "model": "default", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]})
            assert reply.status_code == 200, reply.text
        assert _aborted(sim.url) == aborted + 1  # paused: nothing new started, nothing else let go of
        prefills = _prefills(sim)
        load.paused = False
        await _until(lambda: _prefills(sim) > prefills, "the load's next request prefilled after the pause")
        load.paused = True
        await _until(lambda: _aborted(sim.url) == aborted + 2, "the next request aborted by the next pause")
        assert (load.abandoned, load.completed) == (2, 0)
    finally:
        task.cancel()
