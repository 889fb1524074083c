"""The simulator's models, in process: decode calibration, GPU memory, log formats, text, startup pacing."""

from __future__ import annotations

import asyncio
import io
import itertools
import random

import httpx
import pytest

from mtptui.sim import messages
from mtptui.sim.boot import build_boot
from mtptui.sim.decode import DecodeModel
from mtptui.sim.engine import Engine
from mtptui.sim.launch import settings_for
from mtptui.sim.logfmt import LogWriter, plain_bar, shard_bar
from mtptui.sim.memory import MemoryInputs, plan_memory
from mtptui.sim.model import lookup
from mtptui.sim.request import Request
from mtptui.sim.runtime import Runtime
from mtptui.sim.startup import Pacer, run_startup
from mtptui.sim.textgen import Piece, generate, request_rng
from tests.decode_expected import mean_accept_len, tokens_per_second
from tests.simserver import profile_argv

QWEN = lookup("/data/models/Qwen3.6-27B")


@pytest.mark.parametrize(("model", "accept", "tok_s"), [
    (DecodeModel(), (1.0, 1.0), (21, 23)),
    (DecodeModel(1, 1, 2), (1.7, 1.8), (33, 37)),  # the bad redeploy: accept len 1.75, ~35 tok/s
    (DecodeModel(3, 1, 4), (3.0, 3.5), (50, 57)),  # the restored unit: accept len 2.98-3.52, 47-57 tok/s
])
def test_decode_model_is_calibrated_to_the_mission(model, accept, tok_s) -> None:
    assert accept[0] <= mean_accept_len(model) <= accept[1]
    assert tok_s[0] <= tokens_per_second(model) <= tok_s[1]
    rng = random.Random(1)
    draws = [model.correct(rng.random()) + 1 for _ in range(20000)]
    assert sum(draws) / len(draws) == pytest.approx(mean_accept_len(model), rel=0.02)
    assert max(draws) <= (model.steps + 1 if model.speculative else 1)


def test_acceptance_falls_off_by_draft_position_and_the_optimum_is_three_steps() -> None:
    """The issue's shape: per position ~0.75 / 0.70 / 0.60, then a tail falling by ~0.6; a step costs time."""
    models = {steps: DecodeModel(steps, 1, steps + 1) for steps in range(1, 8)}
    gains = [mean_accept_len(models[s + 1]) - mean_accept_len(models[s]) for s in range(1, 7)]
    assert gains == sorted(gains, reverse=True) and gains[2] < 0.2  # each further draft brings less
    speeds = {steps: tokens_per_second(model) for steps, model in models.items()}
    assert max(speeds, key=speeds.get) == 3 and 53 <= speeds[3] <= 57
    assert speeds[4] <= speeds[3] and speeds[4] >= 0.97 * speeds[3]  # a fourth step adds nothing (within noise)
    assert speeds[5] < 0.98 * speeds[3] and speeds[7] < speeds[5]  # deeper settings stop paying
    assert speeds[3] / speeds[1] == pytest.approx(1.57, abs=0.05)  # "+57 % over steps 1"


def test_deep_drafts_cost_more_at_high_concurrency() -> None:
    """Batch effects: the verify grows with every request's draft tokens, so depth pays less at c=16."""
    def ratio(batch: int) -> float:
        return tokens_per_second(DecodeModel(4, 1, 5), batch) / tokens_per_second(DecodeModel(2, 1, 3), batch)

    assert ratio(16) < ratio(4) < ratio(1)


def test_the_same_draw_accepts_at_least_as_many_drafts_under_deeper_settings() -> None:
    """One draw per step decides how far the chain is accepted, so settings differ by depth, not by luck."""
    rng = random.Random(3)
    for _ in range(2000):
        draw = rng.random()
        counts = [DecodeModel(s, 1, s + 1).correct(draw) for s in range(1, 7)]
        assert counts == sorted(counts) and all(c <= s for c, s in zip(counts, range(1, 7)))


def test_a_requests_draws_are_stratified_so_short_runs_realize_the_expected_accept_length() -> None:
    from mtptui.sim.draws import BLOCK, StepDraws

    draws = StepDraws(0, "prompt", 0)
    block = sorted(draws.next() for _ in range(BLOCK))
    assert all(i / BLOCK <= v < (i + 1) / BLOCK for i, v in enumerate(block))
    model = DecodeModel(3, 1, 4)
    for prompt in ("a", "b", "c", "d"):
        draws = StepDraws(0, prompt, 0)
        accepted = [model.correct(draws.next()) + 1 for _ in range(32)]  # ~96 tokens
        assert sum(accepted) / len(accepted) == pytest.approx(mean_accept_len(model), rel=0.06)


def test_draws_repeat_for_a_replayed_request_and_differ_between_requests() -> None:
    from mtptui.sim.draws import StepDraws

    def first(counter: int) -> list[float]:
        draws = StepDraws(0, "a", counter)
        return [draws.next() for _ in range(12)]

    assert first(3) == first(3) and first(0) != first(5)


def test_concurrency_lowers_per_request_speed_but_raises_the_total() -> None:
    model = DecodeModel(3, 1, 4)
    speeds = [tokens_per_second(model, bs) for bs in (1, 4, 16)]
    assert speeds == sorted(speeds, reverse=True)
    assert 16 * speeds[2] > 4 * speeds[1] > speeds[0]


def _inputs(**changes) -> MemoryInputs:
    base = dict(gpu_mem_gb=48.0, tp_size=2, mem_fraction_static=0.88, context_len=131072, max_num_reqs=16,
                mamba_ratio=0.5, draft_tokens=4, capture_bs=(1, 2, 4, 8, 12, 16))
    return MemoryInputs(**{**base, **changes})


def test_memory_plan_of_the_restored_profile() -> None:
    plan = plan_memory(QWEN, _inputs())
    assert plan.failure is None
    assert (round(plan.weights_gb, 2), round(plan.draft_weights_gb, 2)) == (25.64, 2.82)
    assert f"{plan.ranks[0].after_draft_weights:.2f}" == "3.37"  # "Load weight end. ... avail mem=3.37 GB"
    assert plan.mamba is not None and plan.mamba.size >= 16


def test_memory_flags_size_the_pools() -> None:
    tokens = plan_memory(QWEN, _inputs()).tokens
    assert plan_memory(QWEN, _inputs(mem_fraction_static=0.8)).tokens < tokens
    assert plan_memory(QWEN, _inputs(context_len=262144, max_num_reqs=2048)).tokens < tokens
    assert plan_memory(QWEN, _inputs(mamba_ratio=0.9)).tokens < tokens
    assert plan_memory(QWEN, _inputs(mem_fraction_static=0.5)).failure == "pool"
    assert plan_memory(QWEN, _inputs(tp_size=1)).failure == "weights"
    assert plan_memory(QWEN, _inputs(mem_fraction_static=0.99)).failure == "draft"  # no room for the MTP head
    assert plan_memory(QWEN, _inputs(mem_fraction_static=0.999, draft_tokens=0)).failure == "capture"


def test_progress_bars_match_real_logs() -> None:
    assert shard_bar("Multi-thread loading shards", 1, 4, 1.07) == \
        "Multi-thread loading shards:  25% Completed | 1/4 [00:01<00:03,  1.07s/it]"
    assert plain_bar("Capturing batches (bs=24 avail_mem=4.00 GB)", 1, 7, 2.96) == \
        "Capturing batches (bs=24 avail_mem=4.00 GB):  14%|█▍        | 1/7 [00:02<00:17,  2.96s/it]"


def test_bars_are_carriage_return_separated_on_one_line() -> None:
    out = io.StringIO()
    log = LogWriter(2, stream=out)
    log.bar("long bar text")
    log.bar("short")
    log.bar_close()
    assert out.getvalue() == "\rlong bar text\rshort        \n"


def test_log_prefixes() -> None:
    out = io.StringIO()
    LogWriter(2, stream=out, clock=lambda: 0.0).rank(1, "x")
    LogWriter(1, stream=out, clock=lambda: 0.0).rank(0, "y")
    first, second = out.getvalue().splitlines()
    assert first.endswith(" TP1] x") and second.endswith(":00] y")


def test_decode_line_matches_the_reference_example() -> None:
    line = messages.decode_batch(4, messages.usage_parts(True, 685000, 0.49, 12, 0.67, True), (2.77, 0.69), True,
                                 8.44, 0)
    assert line == ("Decode batch, #running-req: 4, #full token: 685000, full token usage: 0.49, mamba num: 12, "
                    "mamba usage: 0.67, accept len: 2.77, accept rate: 0.69, cuda graph: True, "
                    "gen throughput (token/s): 8.44, #queue-req: 0")


def test_text_is_deterministic_per_seed_and_prompt() -> None:
    def text(seed: int, prompt: str, counter: int, temperature: float) -> str:
        stream = generate(request_rng(seed, prompt, counter, temperature), thinking=True)
        return "".join(p.text for p in itertools.islice(stream, 200))

    assert text(0, "a", 0, 0.0) == text(0, "a", 5, 0.0)  # greedy: the counter does not matter
    assert text(0, "a", 0, 0.7) != text(0, "a", 5, 0.7)
    assert text(0, "a", 0, 0.0) != text(1, "a", 0, 0.0)
    assert text(0, "a", 0, 0.0).startswith("<think>")


def _request(max_new: int | None, ignore_eos: bool = False) -> Request:
    stream = iter([Piece("content", "a"), Piece("content", "b"), Piece("eos", ""), Piece("content", "c")])
    return Request("r", 0, 5, max_new, stream, eos_token_id=9, ignore_eos=ignore_eos)


def test_request_stops_at_length_or_eos() -> None:
    request = _request(2)
    assert request.take(4) == 2 and request.finish_reason == "length"
    request = _request(None)
    assert request.take(4) == 3 and (request.finish_reason, request.matched_stop) == ("stop", 9)
    request = _request(3, ignore_eos=True)
    assert request.take(4) == 3 and request.finish_reason == "length"


class RecordingPacer(Pacer):
    """Adds up the realistic startup durations instead of sleeping them."""

    total = 0.0

    async def sleep(self, seconds: float) -> None:
        self.total += seconds


def test_startup_takes_about_a_minute_at_speed_one() -> None:
    from mtptui.sim.server import UVICORN_START_S

    boot = build_boot(settings_for(profile_argv("restored"), "0.5.12.post1"))
    pacer = RecordingPacer(1.0, random.Random(0))
    asyncio.run(run_startup(boot, LogWriter(2, stream=io.StringIO()), pacer))
    assert 50 <= pacer.total + UVICORN_START_S + 1.0 <= 70


async def test_health_is_503_while_starting() -> None:
    boot = build_boot(settings_for(profile_argv("redeploy-1step"), "0.5.12.post1"))
    log = LogWriter(2, stream=io.StringIO())
    runtime = Runtime(boot, Engine(boot, log, random.Random(0)), log, None, 0, "127.0.0.1", 30000)
    from mtptui.sim.api import build_app

    transport = httpx.ASGITransport(app=build_app(runtime))
    async with httpx.AsyncClient(transport=transport, base_url="http://sim") as client:
        assert (await client.get("/health")).status_code == 503
        assert (await client.get("/v1/models")).status_code == 200


def test_first_decode_steps_after_start_are_slow() -> None:
    model = DecodeModel(3, 1, 4)
    rng = random.Random(0)
    assert model.sample_step(1, 0, rng) > 2 * model.sample_step(1, 100, rng)


async def test_idle_gauges_are_republished_with_nothing_running(monkeypatch) -> None:
    """SGLang's _maybe_log_idle_metrics: every 30 s while idle, num_running_reqs from the empty batch and
    gen_throughput 0 (here the period is shortened; nothing is timed)."""
    from prometheus_client.parser import text_string_to_metric_families

    from mtptui.sim import engine as engine_module
    from mtptui.sim.metrics import SimMetrics

    monkeypatch.setattr(engine_module, "IDLE_METRICS_S", 0.05)
    boot = build_boot(settings_for(profile_argv("restored"), "0.5.12.post1"))
    metrics = SimMetrics(boot.settings.served_model_name, boot.surface)
    engine = Engine(boot, LogWriter(2, stream=io.StringIO()), random.Random(0), metrics)
    metrics.set(num_running_reqs=3, gen_throughput=55.0)  # as the last decode log left them

    def gauges() -> dict:
        families = text_string_to_metric_families(metrics.render().decode())
        return {f.name: f.samples[0].value for f in families if f.name in ("sglang:num_running_reqs",
                                                                           "sglang:gen_throughput")}

    async def republished() -> None:
        while gauges() != {"sglang:num_running_reqs": 0.0, "sglang:gen_throughput": 0.0}:
            await asyncio.sleep(0.01)

    task = asyncio.create_task(engine.run())
    try:
        await asyncio.wait_for(republished(), 30)  # a guard against hanging, not a speed check
    finally:
        engine.stop()
        await task
    assert engine.stats.last_gen_throughput == 0.0 and not engine.running
