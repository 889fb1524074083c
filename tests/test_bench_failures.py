"""Failures against the simulated server: each failed request carries its reason, and the run goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mtptui.bench.events import RateSample
from mtptui.bench.load import LoadPlan
from mtptui.bench.payload import Sampling
from mtptui.bench.prompts import load_prompt_set
from mtptui.bench.runner import BenchConfig, BenchRunner
from tests.simserver import profile_argv, profile_env, start_sim


def config(url: str, requests: int = 2, concurrency: int = 1, max_tokens: int = 16, **extra) -> BenchConfig:
    return BenchConfig(url=url, prompts=load_prompt_set("chat"), max_tokens=max_tokens,
                       plan=LoadPlan(requests=requests, concurrency=concurrency, warmup=0), **extra)


async def test_a_too_long_streamed_request_is_http_400(sim_restored) -> None:
    """SGLang validates a streamed request before it starts streaming: HTTP 400, not an error line in a 200."""
    result = await BenchRunner(config(sim_restored.url, max_tokens=200_000)).run()
    assert result.summary["requests_ok"] == 0 and result.summary["requests_failed"] == 2
    error = result.requests[0].metrics.error
    assert error == ("HTTP 400: max_completion_tokens is too large: 200000.This model supports at most 131072 "
                     "completion tokens.")
    assert result.warnings[0].startswith("2 of 2 requests failed (most common, 2x: HTTP 400: max_completion")


async def test_http_400_for_a_rejected_request(sim_restored) -> None:
    result = await BenchRunner(config(sim_restored.url, sampling=Sampling(temperature=-1.0))).run()
    assert [r.metrics.error for r in result.requests] == ["HTTP 400: temperature must be non-negative, got -1.0."] * 2


async def test_read_timeout_fails_the_request_not_the_run(sim_restored) -> None:
    """No data for 5 ms: the first token of the simulated server takes a prefill (at least 18 ms)."""
    result = await BenchRunner(config(sim_restored.url, timeout=0.005)).run()
    assert [r.metrics.error for r in result.requests] == ["timed out: no data for 0.005 s"] * 2


async def test_server_killed_mid_run(tmp_path: Path) -> None:
    """Streams in flight lose their connection; the requests after that cannot connect; all are reported."""
    with start_sim(tmp_path, profile_argv("restored"), env=profile_env("restored")) as sim:
        runner = BenchRunner(config(sim.url, requests=4, concurrency=2, max_tokens=400))
        async for event in runner.events():
            if isinstance(event, RateSample) and sim.proc.poll() is None:
                sim.proc.kill()
                await asyncio.to_thread(sim.proc.wait)
            last = event
    result = last.result
    errors = [r.metrics.error for r in result.requests]
    assert result.summary["requests_failed"] == 4 and len(result.requests) == 4
    assert errors[0].startswith("connection lost mid-stream") and errors[1].startswith("connection lost mid-stream")
    # later requests are refused, or (on a loaded machine) accepted by the dying listener's backlog, then reset
    assert all(e.startswith(("cannot connect to the server", "connection lost mid-stream")) for e in errors[2:])
    assert result.requests[0].metrics.output_tokens > 0
