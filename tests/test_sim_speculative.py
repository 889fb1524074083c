"""The simulated server under different speculative settings: greedy output stays the same, and the test-only lossy
switch (mtptui.sim.lossy) changes the output of the steps it names."""

from __future__ import annotations

import asyncio
import io
import random

import httpx
import pytest

from mtptui.sim.api import build_app
from mtptui.sim.boot import build_boot
from mtptui.sim.engine import Engine
from mtptui.sim.launch import settings_for
from mtptui.sim.logfmt import LogWriter
from mtptui.sim.lossy import LOSSY_AT, LOSSY_ENV, lossy_steps
from mtptui.sim.runtime import Runtime
from tests.simserver import MISSION_MODEL

PROMPT = [{"role": "user", "content": "Write a red-black tree in Python."}]


@pytest.fixture(autouse=True)
def quick_steps(monkeypatch):
    """Decode steps of half a millisecond: these tests are about which tokens come, not when."""
    from mtptui.sim.decode import DecodeModel

    monkeypatch.setattr(DecodeModel, "sample_step", lambda self, batch, since, rng: 0.0005)


def argv(steps: int) -> list[str]:
    return ["--model-path", MISSION_MODEL, "--tp-size", "2", "--speculative-algorithm", "NEXTN",
            "--speculative-num-steps", str(steps), "--speculative-eagle-topk", "1",
            "--mamba-scheduler-strategy", "extra_buffer", "--reasoning-parser", "qwen3"]


async def answers(steps: int, env: dict[str, str], temperature: float = 0.0, count: int = 2) -> list[tuple[str, float]]:
    """(reasoning + content, accept length from the server's truth) of ``count`` requests, one after another."""
    settings = settings_for(argv(steps), "0.5.12.post1")
    settings.env = env
    boot = build_boot(settings)
    log = LogWriter(2, stream=io.StringIO())
    runtime = Runtime(boot, Engine(boot, log, random.Random(0)), log, None, 0, "127.0.0.1", 30000, status="up")
    task = asyncio.create_task(runtime.engine.run())
    body = {"messages": PROMPT, "max_tokens": 40, "temperature": temperature}
    out = []
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(runtime)), base_url="http://sim",
                                     timeout=60) as client:
            for _ in range(count):
                message = (await client.post("/v1/chat/completions", json=body)).json()["choices"][0]["message"]
                truth = runtime.engine.truth()[-1]
                out.append(((message["reasoning_content"] or "") + (message["content"] or ""), truth["accept_len"]))
    finally:
        runtime.engine.stop()
        await task
    return out


async def test_greedy_output_is_the_same_under_every_speculative_setting() -> None:
    runs = {steps: await answers(steps, {}) for steps in (1, 3, 4)}
    texts = {text for run in runs.values() for text, _ in run}
    assert len(texts) == 1 and len(next(iter(texts)).split()) > 20
    for steps, ((_, first), (_, second)) in runs.items():
        assert first == pytest.approx(second, rel=0.12), steps  # stratified draws: close, request after request
    assert runs[1][0][1] < runs[3][0][1]


async def test_sampling_changes_the_text_from_one_request_to_the_next() -> None:
    (text_a, _), (text_b, _) = await answers(3, {}, temperature=0.7)
    assert text_a != text_b


async def test_the_lossy_switch_changes_only_the_steps_it_names_from_token_lossy_at() -> None:
    env = {LOSSY_ENV: "4"}
    plain, lossy, other = await answers(3, {}, count=1), await answers(4, env, count=1), await answers(3, env, count=1)
    assert other[0][0] == plain[0][0] != lossy[0][0]
    common = next(i for i, (a, b) in enumerate(zip(plain[0][0], lossy[0][0])) if a != b)
    assert common > LOSSY_AT  # the first tokens agree: the output diverges, as real numerics make it do


@pytest.mark.parametrize(("value", "steps"), [("4", {4}), ("2, 4", {2, 4}), ("x,3", {3}), ("", set())])
def test_the_lossy_switch_reads_a_list_of_step_counts(value, steps) -> None:
    assert lossy_steps({LOSSY_ENV: value}) == steps
