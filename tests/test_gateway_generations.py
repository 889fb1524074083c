"""Older router API generations, each the real release from PyPI (cached venvs, tests/smg_venv.py): recognised,
their worker lists read, their add and remove calls refused with one sentence."""

from __future__ import annotations

import asyncio
import time

import pytest

from mtptui.gateway.client import Gateway
from mtptui.gateway.http import GatewayError
from mtptui.gateway.workers import Worker
from tests.gateway_lab import launch_smg

ROUTERS = {"sglang-router==0.1.9": "router-0.1", "sglang-router==0.2.4": "router-0.2"}


async def _listing(url: str) -> tuple[str, list[Worker]]:
    async with Gateway(url) as gateway:
        return await gateway.generation(), await gateway.workers()


def _listed(url: str, wanted: str, timeout: float = 30.0) -> tuple[str, list[Worker]]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            generation, workers = asyncio.run(_listing(url))
            if any(w.url == wanted for w in workers) or time.monotonic() > deadline:
                return generation, workers
        except GatewayError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.3)


@pytest.mark.parametrize("requirement", sorted(ROUTERS))
def test_an_older_router_is_read_and_its_calls_refused(requirement, sim_restored, tmp_path) -> None:
    router = launch_smg(tmp_path, [sim_restored.url], requirement=requirement)
    try:
        generation, workers = _listed(router.url, sim_restored.url)
        assert generation == ROUTERS[requirement]
        assert [w.url for w in workers] == [sim_restored.url] and workers[0].status is None

        async def calls() -> list[str]:
            said = []
            async with Gateway(router.url) as gateway:
                for call in (gateway.remove(workers[0]), gateway.add(sim_restored.url)):
                    with pytest.raises(GatewayError) as caught:
                        await call
                    said.append(str(caught.value))
            return said

        removal, addition = asyncio.run(calls())
        assert removal.startswith(f"the gateway at {router.url} is ") and "without a draining state, so mtptui " \
            "does not remove a worker through it: upgrade it to SMG" in removal
        assert "so mtptui does not add a worker through it" in addition
        assert [w.url for w in _listed(router.url, sim_restored.url)[1]] == [sim_restored.url]  # nothing was done
    finally:
        router.stop()
