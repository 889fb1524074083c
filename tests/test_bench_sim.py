"""The benchmark against the simulated SGLang server, checked against the server's own truth (`/sim/requests`).

Decode in the simulator runs in real time (only start-up is sped up), so runs are kept short: few requests,
small max tokens. The accept length comes from wherever the version has it: sglext on 0.5.23; on 0.5.12.post1
the server's log (followed as the dashboard follows a host's: a reader process through a transport, here
the local one) or the /metrics gauge.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from mtptui.bench.decodelog import DecodeLog
from mtptui.bench.events import Notice, RateSample, RequestDone, RunFinished, RunStarted
from mtptui.bench.load import LoadPlan
from mtptui.bench.payload import Sampling
from mtptui.bench.prompts import load_prompt_set
from mtptui.bench.result import BenchResult
from mtptui.bench.runner import BenchConfig, BenchRunner
from tests.simserver import profile_argv, profile_env, start_sim, version_args


# A dense model (no mamba flags, which 0.5.23 renamed) with 3 MTP steps, the qwen3 parser and metrics on.
SPEC_ARGV = ["--model-path", "/data/models/Qwen3-8B", "--speculative-algorithm", "NEXTN", "--speculative-num-steps",
             "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4", "--reasoning-parser",
             "qwen3", "--enable-metrics"]


def config(url: str, *, requests: int, concurrency: int = 1, max_tokens: int = 64, prompts: str = "rbtree",
           **extra) -> BenchConfig:
    plan = LoadPlan(requests=requests, concurrency=concurrency, warmup=1)
    return BenchConfig(url=url, prompts=load_prompt_set(prompts), plan=plan, max_tokens=max_tokens, **extra)


def truth_of(url: str, result: BenchResult) -> list[dict]:
    """The server's record of each measured request, in the result's order."""
    by_rid = {t["rid"]: t for t in httpx.get(url + "/sim/requests").json()["requests"]}
    return [by_rid[r.metrics.rid] for r in result.requests]


def server_log(sim) -> DecodeLog:
    """The simulated server's log followed from its end, through the local transport (as the demo's)."""
    from mtptui.remote.follow import LogFollower
    from mtptui.remote.local import LocalTransport
    from mtptui.remote.logsource import FileLog, Start

    return DecodeLog(LogFollower(LocalTransport(), FileLog(str(sim.log_path)), start=Start.end()))


def truth_accept(truth: list[dict]) -> float:
    return sum(t["completion_tokens"] for t in truth) / sum(t["verify_steps"] for t in truth)


def truth_tok_s(truth: list[dict]) -> float:
    """Output tokens per second as the server saw the run: first arrival to last token."""
    span = max(t["last_token"] for t in truth) - min(t["arrival"] for t in truth)
    return sum(t["completion_tokens"] for t in truth) / span


# 16 clients get longer answers: two waves of 48 tokens last ~2 s, where 60 ms of a busy machine's latency at the
# first send or the last read is 3 % already (the bench times the client's span, the truth the server's).
@pytest.mark.parametrize("concurrency, requests, max_tokens", [(1, 4, 48), (16, 32, 128)])
async def test_output_tok_s_within_3_percent_of_truth(sim_restored, concurrency: int, requests: int,
                                                      max_tokens: int) -> None:
    result = await BenchRunner(config(sim_restored.url, requests=requests, concurrency=concurrency,
                                      max_tokens=max_tokens)).run()
    truth = truth_of(sim_restored.url, result)
    s = result.summary
    assert s["requests_ok"] == requests and s["requests_failed"] == 0
    assert s["output_tok_s"] == pytest.approx(truth_tok_s(truth), rel=0.03)
    for request, real in zip(result.requests, truth):
        m = request.metrics
        assert (m.output_tokens, m.reasoning_tokens) == (real["completion_tokens"], real["reasoning_tokens"])
        assert m.verify_ct is None and m.accept_len is None  # 0.5.12.post1 sends no per-request acceptance
        assert not m.usage_approximate
    assert s["accept_len_sglext"] is None and s["accept_len_metrics"] is None  # nor a verify counter
    assert s["accept_len_source"] in ("spec_accept_length gauge", "server_info average")
    assert s["accept_len"] == pytest.approx(truth_accept(truth), abs=0.3)


async def test_per_request_acceptance_from_sglext_on_0523(tmp_path: Path) -> None:
    with start_sim(tmp_path, profile_argv("restored", "0.5.23"), env=profile_env("restored"),
                   sim_args=version_args("0.5.23")) as sim:
        result = await BenchRunner(config(sim.url, requests=3, max_tokens=48)).run()
        truth = truth_of(sim.url, result)
    for request, real in zip(result.requests, truth):
        assert request.metrics.verify_ct == real["verify_steps"]
        assert request.metrics.accept_len == pytest.approx(real["accept_len"])
    assert result.summary["accept_len"] == pytest.approx(truth_accept(truth))
    assert result.summary["accept_len_source"] == "sglext"


async def test_mission_profiles_give_about_35_and_55_tok_s_and_the_logs_accept_length(
        sim_restored, sim_redeploy) -> None:
    """0.5.12.post1: the accept length comes from the server's decode-log lines, within 0.3 of the truth."""
    speeds, accept = {}, {}
    for name, sim in (("restored", sim_restored), ("redeploy", sim_redeploy)):
        result = await BenchRunner(config(sim.url, requests=3, max_tokens=96), log=server_log(sim)).run()
        speeds[name], accept[name] = result.summary["request_tok_s"], result.summary["accept_len"]
        assert result.fingerprint["launch_flags"]["speculative_num_steps"] == (3 if name == "restored" else 1)
        assert result.summary["accept_len_source"] == "server log"
        assert accept[name] == pytest.approx(truth_accept(truth_of(sim.url, result)), abs=0.3)
        live = [s for s in result.samples if s.accept_len is not None]
        assert live and all(s.accept_from == "server log" for s in live)
    assert 49 <= speeds["restored"] <= 61 and 31 <= speeds["redeploy"] <= 39, speeds
    assert 2.6 <= accept["restored"] <= 3.6 and 1.5 <= accept["redeploy"] <= 2.0, accept


async def test_live_feed_books_every_token_once_split_reasoning_and_content(sim_restored) -> None:
    runner = BenchRunner(config(sim_restored.url, requests=6, concurrency=3, max_tokens=112, prompts="chat"))
    events = [event async for event in runner.events()]
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)
    result = events[-1].result
    done = [e for e in events if isinstance(e, RequestDone)]
    assert [e.warmup for e in done].count(True) == 1 and len(done) == 7
    samples = [e for e in events if isinstance(e, RateSample)]
    assert samples == result.samples and samples and all(0 <= s.in_flight <= 3 for s in samples)
    reasoning = sum(r.metrics.reasoning_tokens for r in result.requests)
    content = sum(r.metrics.content_tokens for r in result.requests)
    assert reasoning > 0 and content > 0
    assert sum(s.reasoning_tok_s * s.width for s in samples) == pytest.approx(reasoning)
    assert sum(s.content_tok_s * s.width for s in samples) == pytest.approx(content)
    assert result.summary["ttfc_ms"]["mean"] > result.summary["ttft_ms"]["mean"]
    assert not [e for e in events if isinstance(e, Notice)]


async def test_accept_length_from_metrics_counters(tmp_path: Path) -> None:
    """SGLang 0.5.23 exports sglang:spec_verify_calls_total: the run's accept length from counter deltas."""
    with start_sim(tmp_path, SPEC_ARGV, sim_args=["--sim-version", "0.5.23"]) as sim:
        assert sim.ready(), sim.log_text()[-2000:]
        result = await BenchRunner(config(sim.url, requests=2, max_tokens=64)).run()
        truth = truth_of(sim.url, result)
    assert result.summary["accept_len_metrics"] == pytest.approx(truth_accept(truth))
    live = [s for s in result.samples if s.accept_len is not None]  # from the gauge: counters move at request end
    assert live and all(1.0 <= s.accept_len <= 4.0 and s.accept_from == "gauge" for s in live)


async def test_bench_url_without_a_log_says_there_is_no_accept_length(tmp_path: Path) -> None:
    argv = [w for w in profile_argv("redeploy-1step") if w != "--enable-metrics"]
    sim_args = ["--sim-version", "0.5.12.post1"]
    with start_sim(tmp_path, argv, env=profile_env("redeploy-1step"), sim_args=sim_args) as sim:
        result = await BenchRunner(config(sim.url, requests=1, max_tokens=8)).run()
    s = result.summary
    if s["accept_len_source"] == "server_info average":  # the warm-up may already have crossed a decode log
        assert "lifetime average" in " ".join(result.warnings)
        return
    assert s["accept_len"] is None and s["accept_len_note"] == (
        "no accept length: SGLang 0.5.12.post1 sends no per-request acceptance (sglext); /metrics is off "
        "(--enable-metrics); no server log was followed (bench a host instead of --url)")
    assert s["accept_len_note"] in result.warnings


async def test_no_thinking_gives_content_only(sim_restored) -> None:
    result = await BenchRunner(config(sim_restored.url, requests=1, max_tokens=24,
                                      sampling=Sampling(enable_thinking=False))).run()
    assert result.summary["reasoning_tokens"] == 0 and result.summary["content_tokens"] == 24
    assert result.fingerprint["sampling"]["enable_thinking"] is False
