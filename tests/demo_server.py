"""A demo run's simulated server (SGLang, or vLLM as `mtptui demo --engine vllm`), started for a test: a local,
process-managed host."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from mtptui.demo.run import DemoRun


async def wait_healthy(url: str) -> None:
    """Until the server at ``url`` answers /health with 200 (60 s at most)."""
    async with httpx.AsyncClient() as client:
        for _ in range(600):
            try:
                if (await client.get(f"{url}/health")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError(f"the simulated server at {url} never answered /health")


@contextlib.contextmanager
def running_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str | None = None,
                 **env: str) -> Iterator[DemoRun]:
    """A demo run of ``engine`` started at a fast pace with the server's environment (and ``env``) set, healthy;
    stopped after."""
    run = DemoRun.prepare(tmp_path, speed=200, engine=engine)
    for name, value in {**run.server_environment(), **env}.items():
        monkeypatch.setenv(name, value)
    run.start()
    try:
        asyncio.run(wait_healthy(run.api_url))
        yield run
    finally:
        run.stop()
