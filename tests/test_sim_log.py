"""The simulated server's whole log, read back by the project's own parser and dashboard state."""

from __future__ import annotations

import httpx
import pytest

from mtptui.engines.sglang.logparse import parse_text
from mtptui.engines.sglang.state import ServerState
from mtptui.engines.sglang.state.phases import CRASHED, READY
from tests.simserver import MISSION_MODEL, launch_sim, profile_argv, profile_env, start_sim

PROMPT = [{"role": "user", "content": "Write a red-black tree in Python."}]


@pytest.fixture(scope="module")
def restored_log(tmp_path_factory) -> tuple[str, dict]:
    """The log of a restored-profile server that started, served one request and was stopped."""
    tmp = tmp_path_factory.mktemp("sim-log")
    argv = profile_argv("restored") + ["--decode-log-interval", "10"]
    with start_sim(tmp, argv, env=profile_env("restored")) as sim:
        assert sim.ready(), sim.log_text()[-2000:]
        httpx.post(sim.url + "/v1/chat/completions", json={"messages": PROMPT, "max_tokens": 150}, timeout=30)
        info = httpx.get(sim.url + "/server_info").json()
    return sim.log_text(), info


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def test_startup_phases_in_order(restored_log) -> None:
    events = parse_text(restored_log[0])
    order = kinds(events)
    firsts = [order.index(k) for k in ("weight_load_begin", "shard_progress", "weight_load_end", "mamba_cache",
                                       "kv_cache", "memory_pool_end", "graph_capture_begin",
                                       "graph_capture_progress", "graph_capture_end", "capacity", "http_access",
                                       "prefill", "server_ready", "decode")]
    assert firsts == sorted(firsts)
    problems = [e.get("message", "") for e in events if e.kind in ("error", "warning")]
    # the one warning is the stop at the end of the fixture: SGLang's SIGTERM line, then its drain
    assert len(problems) == 1 and problems[0].startswith("SIGTERM received"), problems


def test_startup_numbers(restored_log) -> None:
    events, info = parse_text(restored_log[0]), restored_log[1]
    shards = [e for e in events if e.kind == "shard_progress"]
    assert (shards[0].fields["done"], shards[-1].fields["done"], shards[-1].fields["total"]) == (0, 15, 15)
    loads = [(e.ranks.get("TP"), e.fields["model_type"], e.fields["mem_usage_gb"]) for e in events
             if e.kind == "weight_load_end"]
    assert loads == [(0, "Qwen3_5ForCausalLM", 25.64), (1, "Qwen3_5ForCausalLM", 25.64),
                     (0, "Qwen3_5ForCausalLMMTP", 2.82), (1, "Qwen3_5ForCausalLMMTP", 2.82)]
    mtp0 = [e for e in events if e.kind == "weight_load_end" and e.fields["model_type"].endswith("MTP")][0]
    assert mtp0.fields["avail_mem_gb"] == 3.37  # the mission's line
    pools = [e.fields["tokens"] for e in events if e.kind == "kv_cache"]
    assert len(pools) == 4 and set(pools) == {info["max_total_num_tokens"]}  # target + draft pool per rank
    capacity = next(e for e in events if e.kind == "capacity").fields
    assert (capacity["max_running_requests"], capacity["context_len"]) == (16, 131072)
    assert capacity["max_total_num_tokens"] == info["max_total_num_tokens"]
    captures = [e.fields for e in events if e.kind == "graph_capture_progress"]
    assert captures[-1]["done"] == captures[-1]["total"] == 6  # bs 1, 2, 4, 8, 12, 16


def test_serving_lines(restored_log) -> None:
    events = parse_text(restored_log[0])
    paths = [(e.fields["method"], e.fields["path"], e.fields["status"]) for e in events if e.kind == "http_access"]
    assert paths[:2] == [("GET", "/model_info", 200), ("POST", "/generate", 200)]  # the server's own warm-up
    assert ("POST", "/v1/chat/completions", 200) in paths
    decodes = [e.fields for e in events if e.kind == "decode"]
    assert len(decodes) >= 3
    assert all(d["graph"] is True and d["running_req"] == 1 and d["queue_req"] == 0 for d in decodes)
    assert all(1.0 <= d["accept_len"] <= 4.0 and 0.0 <= d["accept_rate"] <= 1.0 for d in decodes)
    assert all(d["mamba_usage"] is not None and d["tokens"] > 0 for d in decodes)


def test_dashboard_state_after_the_whole_log(restored_log) -> None:
    state = ServerState()
    state.apply_all(parse_text(restored_log[0]))
    assert state.phase == READY and state.ready_at
    assert state.shards["done"] == 15
    tp0 = state.memory.ranks["TP0"]
    assert (tp0.model_type, tp0.weights_gb) == ("Qwen3_5ForCausalLM", 25.64)
    assert (tp0.draft_model_type, tp0.draft_weights_gb) == ("Qwen3_5ForCausalLMMTP", 2.82)
    assert set(state.memory.ranks) == {"TP0", "TP1"}
    assert state.decode_count >= 3 and state.last_accept_len is not None


def test_startup_crash_parses_as_a_crash(tmp_path) -> None:
    argv = ["--model-path", MISSION_MODEL, "--tp", "2", "--speculative-algorithm", "NEXTN",
            "--speculative-num-steps", "1", "--speculative-eagle-topk", "1"]
    sim = launch_sim(tmp_path, argv, speed=500)
    assert sim.wait_exit(30) != 0
    events = parse_text(sim.log_text())
    errors = [e for e in events if e.kind == "error"]
    assert errors and errors[0].fields["message"].startswith("Scheduler hit an exception")
    assert "ValueError: Speculative decoding for Qwen3_5ForCausalLM" in errors[0].fields["traceback"]
    state = ServerState()
    state.apply_all(events)
    assert state.phase == CRASHED


def test_0523_log_format_parses(tmp_path) -> None:
    argv = ["--model-path", MISSION_MODEL, "--tp-size", "2", "--speculative-algorithm", "NEXTN",
            "--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
            "--max-running-requests", "8"]
    with start_sim(tmp_path, argv, sim_args=["--sim-version", "0.5.23"]) as sim:
        assert sim.ready(), sim.log_text()[-2000:]
        text = sim.log_text()
    assert "Memory baseline taken." in text and "Capture target verify CUDA graph begin." in text
    events = parse_text(text)
    assert {e.fields["dtype"] for e in events if e.kind == "kv_cache"} == {"torch.bfloat16"}
    ends = [e.fields for e in events if e.kind == "graph_capture_end"]
    assert ends and all(f["mem_usage_gb"] is not None for f in ends)
    assert kinds(events).count("weight_load_end") == 4 and "server_ready" in kinds(events)
