"""Adaptive speculative decoding in the simulated server, per release: a low-acceptance load moves it from the
launch's 3 steps down to 1 (the log lines, /server_info's live values, parse-log's summary), a usual load keeps 3,
and settings SGLang cannot switch turn it off with SGLang's reason. The slot's rule is checked on its own."""

from __future__ import annotations

import asyncio
import io
import random

import pytest

from mtptui.engines.sglang.adaptive import DEFAULT_TIERS, Tier, Tuning
from mtptui.engines.sglang.logparse import parse_text
from mtptui.engines.sglang.state import ServerState, state_to_dict
from mtptui.sim.adaptive import Slot
from mtptui.sim.boot import build_boot
from mtptui.sim.decode import DecodeModel
from mtptui.sim.launch import settings_for
from mtptui.sim.logfmt import LogWriter
from mtptui.sim.startup import Pacer, run_startup
from tests.simserver import MISSION_MODEL
from tests.speculation_support import simulate

STRATEGY = {"0.5.12.post1": "--mamba-scheduler-strategy", "0.5.23": "--mamba-radix-cache-strategy"}


@pytest.fixture(autouse=True)
def quick_steps(monkeypatch):
    """Decode steps of half a millisecond: these tests are about which steps run, not when."""
    monkeypatch.setattr(DecodeModel, "sample_step", lambda self, batch, since, rng: 0.0005)


class Instant(Pacer):
    async def sleep(self, seconds: float) -> None:
        self.total += seconds


def argv(version: str, *extra: str) -> list[str]:
    return ["--model-path", MISSION_MODEL, "--tp-size", "2", "--speculative-algorithm", "NEXTN",
            "--speculative-num-steps", "3", "--speculative-eagle-topk", "1", STRATEGY[version], "extra_buffer",
            "--speculative-adaptive", *extra]


async def serve(version: str, extra: tuple[str, ...] = (), acceptance: float = 1.0, requests: int = 3):
    """(log text, /server_info) of the adaptive launch after ``requests`` requests of 200 tokens."""
    return await simulate(argv(version, *extra), version, acceptance=acceptance, requests=requests)


def summary_of(text: str) -> dict:
    state = ServerState()
    state.apply_all(parse_text(text))
    return state_to_dict(state)["speculation"]


@pytest.mark.parametrize("version, candidates", [("0.5.12.post1", [1, 3, 7]), ("0.5.23", [1, 3, 5, 7])])
def test_low_acceptance_shifts_down_to_one_step_and_the_server_says_so(version: str, candidates: list) -> None:
    text, info = asyncio.run(serve(version, acceptance=0.2))
    assert f"AdaptiveSpeculativeParams initialized: steps=3, candidate_steps={candidates}" in text
    assert "Switch adaptive runtime state: steps 3 -> 1, draft_tokens 4 -> 2" in text
    state = info["internal_states"][0]
    assert (state["speculative_num_steps"], state["speculative_num_draft_tokens"]) == (1, 2)  # the live values
    assert (info["speculative_num_steps"], info["speculative_adaptive"]) == (3, True)  # the launch's
    summary = summary_of(text)
    assert summary["configured"] == {"algorithm": "EAGLE", "steps": 3, "topk": 1, "draft_tokens": 4}
    assert summary["live"] == {"steps": 1, "draft_tokens": 2}
    assert summary["adaptive"] == {"candidates": candidates} and summary["switches"] >= 1


@pytest.mark.parametrize("version", ["0.5.12.post1", "0.5.23"])
def test_the_usual_acceptance_never_shifts_down_to_one_step(version: str) -> None:
    """Three drafts are all accepted 60 % of the time: the EMA probes 7 steps now and then and comes back."""
    text, info = asyncio.run(serve(version))
    assert "-> 1, draft_tokens" not in text and info["internal_states"][0]["speculative_num_steps"] in (3, 5, 7)
    assert summary_of(text)["live"]["steps"] in (3, 5, 7)


@pytest.mark.parametrize("version, reason", [
    ("0.5.12.post1", "enable_dp_attention=True is not supported (adaptive tier decisions are not synchronized "
                     "across DP ranks)"),
    ("0.5.23", "enable_pdmux=True is not supported (adaptive state swap does not update "
               "decode_attn_backend_group)"),
])
def test_what_sglang_cannot_switch_turns_it_off_with_its_reason(version: str, reason: str) -> None:
    extra = ("--dp-size", "2", "--enable-dp-attention") if version == "0.5.12.post1" else \
        ("--enable-pdmux", "--chunked-prefill-size", "-1")
    text, info = asyncio.run(serve(version, extra, acceptance=0.2, requests=1))
    assert f"speculative_adaptive disabled: {reason}. Falling back to static speculative params." in text
    assert "AdaptiveSpeculativeParams" not in text and "Switch adaptive" not in text
    assert info["speculative_adaptive"] is False and info["internal_states"][0]["speculative_num_steps"] == 3
    assert summary_of(text)["adaptive"] is None


def test_0_5_23_starts_from_the_middle_candidate_when_the_launch_leaves_steps_out(tmp_path) -> None:
    config = tmp_path / "adaptive.json"
    config.write_text('{"1": {"candidate_steps": [2, 4, 6]}}')
    words = [w for w in argv("0.5.23", "--speculative-adaptive-config", str(config))
             if w not in ("--speculative-num-steps", "3", "--speculative-eagle-topk", "1")]
    settings = settings_for(words, "0.5.23")
    assert (settings.spec_steps, settings.spec_topk, settings.spec_draft_tokens) == (4, 1, 5)
    assert settings.adaptive_start.candidates == (2, 4, 6)


def test_0_5_12_dies_after_loading_when_its_config_file_is_missing(tmp_path) -> None:
    from mtptui.sim.startup import StartupFailed

    settings = settings_for(argv("0.5.12.post1", "--speculative-adaptive-config", str(tmp_path / "none.json")),
                            "0.5.12.post1")
    out = io.StringIO()
    with pytest.raises(StartupFailed):
        asyncio.run(run_startup(build_boot(settings), LogWriter(2, stream=out), Instant(1.0, random.Random(0))))
    assert "FileNotFoundError: [Errno 2] No such file or directory:" in out.getvalue()
    assert "Load weight end" in out.getvalue()  # the worker reads it after the weights, unlike 0.5.23


def feed(slot: Slot, correct: float, batches: int) -> list[int]:
    """The steps after each of ``batches`` verify steps whose requests all had ``correct`` drafts right."""
    seen = []
    for _ in range(batches):
        slot.update([correct])
        seen.append(slot.current)
    return seen


def test_0_5_12_moves_down_only_below_its_hysteresis_and_only_every_fifth_batch() -> None:
    tier = Tier(1, (1, 3, 7))
    assert set(feed(Slot(tier, 3, tiered=False), 0.4, 60)) == {3}  # 0.4 > 1 - 0.5 - 0.25
    steps = feed(Slot(tier, 3, tiered=False), 0.0, 30)
    first = steps.index(1)
    assert first >= Tuning().warmup_batches and (first + 1 - Tuning().warmup_batches) % Tuning().update_interval == 0
    assert feed(Slot(tier, 1, tiered=False), 1.0, 30)[-1] == 3  # up again when the drafts are accepted


def test_0_5_23_probes_up_from_zero_steps_and_does_not_rise_in_the_update_it_moved_down() -> None:
    slot = Slot(DEFAULT_TIERS[1], 1, tiered=True)  # batch size 8 and up: [0, 1, 3]
    steps = feed(slot, 0.0, 25)  # updates after batches 15, 20, 25
    assert (steps[13], steps[14], steps[19], steps[24]) == (1, 0, 1, 0)  # down to no drafting, a probe, down
    eager = Tier(1, (1, 3, 7), Tuning(down_hysteresis=5.0))  # drops from 7 at an EMA of 7.5, to 1 at 5.5
    assert feed(Slot(eager, 7, tiered=True), 6.0, 15)[-1] == 3  # moved down this update: no rise after it
    assert feed(Slot(eager, 7, tiered=False), 6.0, 15)[-1] == 7  # 0.5.12.post1 rises again in the same update


def test_the_summary_fast_path_reads_the_speculation_lines_as_the_parser_does() -> None:
    from mtptui.engines.sglang.state.scan import summarize_stream
    from tests.speculation_support import ADAPTIVE_LOG
    from tests.ui_fixtures.support import FIXTURES

    data = (FIXTURES / ADAPTIVE_LOG).read_bytes()
    fast = state_to_dict(summarize_stream(io.BytesIO(data), ServerState()))
    assert fast["speculation"] == summary_of(data.decode()) == {
        "configured": {"algorithm": "EAGLE", "steps": 3, "topk": 1, "draft_tokens": 4},
        "live": {"steps": 1, "draft_tokens": 2}, "adaptive": {"candidates": [1, 3, 7]}, "switches": 1}


def test_the_knobs_take_positive_numbers_only(capsys) -> None:
    from mtptui.cli.main import main
    from mtptui.errors import UserError
    from mtptui.engines.sglang.flags import parse_argv
    from mtptui.sim.settings import from_flagset

    assert main(["sim", "--sim-acceptance", "0", "--", "--model-path", MISSION_MODEL]) == 1
    assert "--sim-acceptance must be a positive number" in capsys.readouterr().err
    with pytest.raises(UserError, match="MTPTUI_SIM_VERIFY_SLOWDOWN must be a positive number, not 'slow'"):
        from_flagset(parse_argv(["--model-path", MISSION_MODEL], "0.5.12.post1"),
                     environ={"MTPTUI_SIM_VERIFY_SLOWDOWN": "slow"})
