"""The step cost: a slower verify step with the same accept length (the simulated server's knob) is what the bench's
step-cost verdict catches, "same acceptance, slower steps", where the acceptance alone says nothing changed."""

from __future__ import annotations

import asyncio

import pytest

from mtptui.bench.step_cost import StepVerdict, judge_steps, request_step_ms, step_ms
from tests.simserver import free_port, start_sim
from tests.test_bench_sim import SPEC_ARGV, config


def test_one_step_costs_its_tokens_over_the_speed() -> None:
    assert step_ms(3.1, 55.0) == pytest.approx(56.36, abs=0.01)  # the unit's figures, speculative-performance.md
    assert step_ms(None, 22.0) == pytest.approx(45.45, abs=0.01)  # no speculation: one token a step
    assert step_ms(1.75, 0) is None
    run = {"summary": {"accept_len": 2.0}, "requests": [{"ok": True, "decode_tok_s": 40.0},
                                                       {"ok": True, "decode_tok_s": 50.0, "accept_len": 2.5},
                                                       {"ok": False, "decode_tok_s": 1.0}]}
    assert request_step_ms(run) == [50.0, 50.0]


def test_the_verdict_needs_the_same_acceptance_and_longer_steps_beyond_noise() -> None:
    before, slower = [56.0, 55.5, 56.4, 55.8], [64.1, 63.6, 64.5, 63.9]
    assert judge_steps(slower, before, 3.05, 3.06).slower
    assert judge_steps(slower, before, 3.05, 3.06).sentence().startswith("same acceptance, slower steps (+14 %)")
    assert not judge_steps(slower, before, 2.5, 3.06).slower  # the acceptance changed: another story
    assert not judge_steps([56.2, 55.9, 56.1], before, 3.05, 3.06).slower
    assert judge_steps([60.0], before, 3.0, 3.0) is None
    assert isinstance(judge_steps(before, before, None, None), StepVerdict)


def bench(url: str, history):
    from mtptui.ops.bench_run import run_bench, target_of_url

    target = target_of_url(url)
    return asyncio.run(run_bench(target, config("", requests=6, max_tokens=48), lambda event: None,
                                 history_path=history))


def test_a_slower_verify_with_unchanged_acceptance_is_a_slower_steps_verdict(tmp_path) -> None:
    port, history = free_port(), tmp_path / "history.jsonl"
    args = ("--sim-version", "0.5.23")  # per-request acceptance in sglext
    with start_sim(tmp_path, SPEC_ARGV, port=port, sim_args=args) as sim:
        first = bench(sim.url, history)
    with start_sim(tmp_path, SPEC_ARGV, port=port, sim_args=(*args, "--sim-verify-slowdown", "1.18")) as sim:
        second = bench(sim.url, history)
    assert first.steps is None  # nothing earlier of this shape
    before, now = first.run["summary"], second.run["summary"]
    assert abs(now["accept_len"] / before["accept_len"] - 1) < 0.03  # the acceptance did not move
    assert now["step_ms"] > before["step_ms"] * 1.1
    assert second.steps is not None and second.steps.slower, second.steps
    assert second.steps.sentence().startswith("same acceptance, slower steps (+")
