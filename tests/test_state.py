"""The dashboard state reducer: phases, memory per rank, warm-up-free throughput, restarts, bounded history."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.engines.sglang.logparse import parse_text
from mtptui.engines.sglang.state import PHASES, ServerState, state_to_dict
from mtptui.engines.sglang.state.scan import summarize_stream

ROOT = Path(__file__).resolve().parents[1]


def p(rank: str = "TP0", ts: str = "2026-05-11 23:49:07") -> str:
    return f"[{ts} {rank}] " if rank else f"[{ts}] "


def decode(gen: float, running: int = 4, accept: float = 3.0, ts: str = "2026-05-11 23:50:00") -> str:
    return (f"{p(ts=ts)}Decode batch, #running-req: {running}, #full token: 1000, full token usage: 0.10, "
            f"mamba num: 3, mamba usage: 0.20, accept len: {accept:.2f}, accept rate: {(accept - 1) / 3:.2f}, "
            f"cuda graph: True, gen throughput (token/s): {gen:.2f}, #queue-req: 0")


STARTUP = [
    f"{p(r)}Load weight begin. avail mem=46.85 GB" for r in ("TP0", "TP1")] + [
    "Multi-thread loading shards: 100% Completed | 15/15 [00:15<00:00,  1.00s/it]",
    f"{p('TP0')}Load weight end. elapsed=28.41 s, type=Qwen3_5ForCausalLM, avail mem=21.24 GB, mem usage=25.61 GB.",
    f"{p('TP1')}Load weight end. elapsed=28.40 s, type=Qwen3_5ForCausalLM, avail mem=21.30 GB, mem usage=25.55 GB.",
    f"{p('TP0')}Load weight end. elapsed=0.19 s, type=Qwen3_5ForCausalLMMTP, avail mem=18.42 GB, mem usage=2.82 GB.",
    f"{p('TP1')}Load weight end. elapsed=0.19 s, type=Qwen3_5ForCausalLMMTP, avail mem=18.48 GB, mem usage=2.82 GB.",
    f"{p('TP0')}Mamba Cache is allocated. max_mamba_cache_size: 48, conv_state size: 0.28GB, ssm_state size: 6.33GB ",
    f"{p('TP0')}KV Cache is allocated. dtype: torch.bfloat16, #tokens: 685000, K size: 5.23 GB, V size: 5.23 GB",
    f"{p('TP0')}KV Cache is allocated. dtype: torch.bfloat16, #tokens: 685000, K size: 0.33 GB, V size: 0.33 GB",
    f"{p('TP0')}Memory pool end. avail mem=4.12 GB",
    f"{p('TP0')}Capture target verify CUDA graph begin. backend=full, num_tokens_per_req=4, avail mem=4.04 GB",
    "Capturing batches (bs=1 avail_mem=3.50 GB): 100%|██████████| 6/6 [00:12<00:00,  2.00s/it]",
    f"{p('TP0')}Capture target verify CUDA graph end. bs=[1, 2, 4], elapsed=21.36 s, mem usage=0.61 GB, "
    "avail mem=3.43 GB.",
    f"{p('TP0')}max_total_num_tokens=685000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
    "max_running_requests=16, context_len=131072, available_gpu_mem=3.43 GB",
    f"{p('')}The server is fired up and ready to roll!",
]
PHASE_AFTER = ["loading_weights"] * 7 + ["allocating_pools"] * 4 + ["capturing_graphs"] * 3 + ["warming_up", "ready"]


def state_of(*lines: str, history: int = 2000) -> ServerState:
    state = ServerState(history=history)
    state.apply_all(parse_text("\n".join(lines) + "\n"))
    return state


def test_phases_through_a_startup() -> None:
    state = ServerState()
    assert state.phase == "starting"
    seen = []
    for event in parse_text("\n".join(STARTUP)):
        state.apply(event)
        seen.append(state.phase)
    assert seen == PHASE_AFTER
    assert set(seen) | {"starting", "crashed"} == set(PHASES)
    assert state.ready_at == "2026-05-11 23:49:07" and state.startups == 1


def test_memory_table_per_rank_with_mtp_weights_and_draft_pool() -> None:
    memory = state_to_dict(state_of(*STARTUP))["memory"]
    assert memory["TP0"] == {"model_type": "Qwen3_5ForCausalLM", "weights_gb": 25.61,
                             "draft_model_type": "Qwen3_5ForCausalLMMTP", "draft_weights_gb": 2.82,
                             "kv_tokens": 685000, "kv_gb": 10.46, "draft_kv_gb": 0.66, "mamba_gb": 6.61,
                             "graphs_gb": 0.61, "avail_gb": 3.43}
    assert (memory["TP1"]["weights_gb"], memory["TP1"]["draft_weights_gb"], memory["TP1"]["kv_gb"],
            memory["TP1"]["avail_gb"]) == (25.55, 2.82, None, 18.48)


def test_weights_from_available_memory_when_the_version_prints_no_usage() -> None:
    state = state_of(f"{p()}Load weight begin. avail mem=78.00 GB",
                     f"{p()}Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail mem=62.45 GB")
    assert state.memory.ranks["TP0"].weights_gb == 15.55


def test_untagged_and_reordered_ranks_share_one_label() -> None:
    state = state_of(f"{p('')}Memory pool end. avail mem=1.00 GB",
                     f"{p('TP1 DP0 EP1')}Memory pool end. avail mem=2.00 GB")
    assert set(state_to_dict(state)["memory"]) == {"TP0", "DP0 TP1 EP1"}


def test_capacity_shards_and_capture_progress() -> None:
    summary = state_to_dict(state_of(*STARTUP))
    assert summary["capacity"]["max_total_num_tokens"] == 685000
    assert summary["capacity"]["available_gpu_mem_gb"] == 3.43
    assert summary["shards"] == {"desc": "Multi-thread loading shards", "done": 15, "total": 15, "percent": 100}
    assert summary["graph_capture"] == {"bs": 1, "avail_mem_gb": 3.5, "done": 6, "total": 6}


def test_steady_throughput_excludes_the_warm_up_batch_and_idle_batches() -> None:
    state = state_of(*STARTUP, decode(3.1), decode(50.0), decode(0.0, running=0), decode(54.0), decode(1.0, running=0))
    assert state.steady_gen_throughput == 52.0
    assert state.decode_count == 5
    assert [sample.gen_throughput for sample in state.series] == [3.1, 50.0, 0.0, 54.0, 1.0]
    assert (state.last_accept_len, state.last_accept_rate) == (3.0, 0.67)


def test_restart_resets_startup_but_keeps_history() -> None:
    access = f'{p("")}INFO:     127.0.0.1:1 - "POST /v1/chat/completions HTTP/1.1" 200 OK'
    before = [*STARTUP, decode(3.0), decode(35.0), decode(37.0), access]
    after = [*STARTUP[:3], f"{p('TP0')}Memory pool end. avail mem=9.99 GB"]
    state = state_of(*before, *after)
    assert (state.phase, state.startups, state.ready_at) == ("allocating_pools", 2, None)
    assert state.shards["done"] == 15 and state.capacity is None
    assert set(state.memory.ranks) == {"TP0", "TP1"} and state.memory.ranks["TP0"].weights_gb is None
    assert state.memory.ranks["TP0"].avail_gb == 9.99
    assert state.decode_count == 3 and state.http_status == {200: 1} and len(state.series) == 3
    state.apply_all(parse_text("\n".join([STARTUP[-1], decode(4.0), decode(50.0), decode(56.0)])))
    summary = state_to_dict(state)
    assert summary["phase"] == "ready"
    assert summary["steady_gen_throughput"] == (35.0 + 37.0 + 50.0 + 56.0) / 4  # each startup's warm-up left out
    assert summary["steady_gen_throughput_this_startup"] == 53.0
    assert summary["steady_batches"] == 4


def test_crash_then_restart() -> None:
    crash = [f"{p()}Scheduler hit an exception: Traceback (most recent call last):",
             "  File \"scheduler.py\", line 1", "RuntimeError: Decode out of memory. Try to lower your batch size.",
             f"{p('')}SIGQUIT received. signum=None, frame=None. It usually means one child failed."]
    state = state_of(*STARTUP, decode(5.0), *crash)
    assert state.phase == "crashed"
    assert state.last_error["message"].startswith("SIGQUIT received.")
    state.apply_all(parse_text("Multi-thread loading shards:   0% Completed | 0/15 [00:00<?, ?it/s]\n"))
    assert (state.phase, state.startups, state.shards["done"]) == ("loading_weights", 2, 0)
    assert state.last_error["message"].startswith("SIGQUIT received.")  # history


def test_scheduler_traceback_reaches_the_state() -> None:
    state = state_of(*STARTUP, f"{p()}Scheduler hit an exception: boom", "ValueError: x")
    assert state_to_dict(state)["error"] == {"message": "Scheduler hit an exception: boom",
                                             "traceback": "ValueError: x", "last_frame": None, "truncated": False,
                                             "ts": "2026-05-11 23:49:07", "ranks": {"TP": 0}}


def test_a_cut_off_traceback_reaches_the_state_as_truncated() -> None:
    state = state_of(*STARTUP, f"{p()}Scheduler hit an exception: Traceback (most recent call last):",
                     '  File "/sgl/scheduler.py", line 2931, in run_scheduler_process', "    scheduler.run()")
    error = state_to_dict(state)["error"]
    frame = 'File "/sgl/scheduler.py", line 2931, in run_scheduler_process'
    assert (error["truncated"], error["last_frame"]) == (True, frame)
    assert state.phase == "crashed"


def test_failed_health_check_alone_is_not_a_crash() -> None:
    state = state_of(*STARTUP, f"{p('')}Health check failed. Server couldn't get a response from detokenizer.")
    assert state.phase == "ready" and state.last_error is not None


def test_warnings_counted_with_the_last_one() -> None:
    state = state_of(f"{p()}KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_tokens_gained: 10",
                     f"{p()}max_total_tokens=131072 is larger than the profiled value -561981. Use the profiled "
                     "value instead.")
    assert state.warning_count == 2 and state.last_warning.startswith("max_total_tokens=131072")
    assert state.phase == "starting"


def test_a_log_that_begins_mid_run_is_ready() -> None:
    assert state_of(decode(40.0)).phase == "ready"


def test_history_is_bounded() -> None:
    lines = [decode(float(n), ts=f"2026-05-11 23:{n // 60 % 60:02d}:{n % 60:02d}") for n in range(1, 301)]
    for state in (state_of(*lines, history=50),
                  summarize_stream(io.BytesIO("\n".join(lines).encode()), ServerState(history=50))):
        series = state.series
        assert len(series) == 50 and series[0].gen_throughput == 251.0 and series[-1].gen_throughput == 300.0
        assert state.decode_count == 300 and state.steady_gen_throughput == sum(range(2, 301)) / 299


def test_summary_is_json_serialisable_and_complete() -> None:
    summary = json.loads(json.dumps(state_to_dict(state_of(*STARTUP, decode(3.0), decode(40.0)))))
    assert {"phase", "ready_at", "shards", "memory", "capacity", "steady_gen_throughput", "last_accept_len",
            "last_accept_rate", "series", "requests", "warnings", "error"} <= set(summary)
    assert summary["series"]["gen_throughput"] == [3.0, 40.0]
    assert summary["requests"] == {"http": {}, "prefill": 0, "decode": 2, "finished": 0}


@pytest.mark.parametrize("shape", ["quiet", "ranks", "access", "container"])
def test_every_log_shape_fast_path_equals_reducer(tmp_path: Path, shape: str) -> None:
    out = tmp_path / f"{shape}.log"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_log.py"), str(out), "--lines", "6000", "--shape",
                    shape], check=True, timeout=60)
    data = out.read_bytes()
    reduced = ServerState()
    reduced.apply_all(parse_text(data))
    with out.open("rb") as fh:
        fast = state_to_dict(summarize_stream(fh, ServerState()))
    assert fast == state_to_dict(reduced)
    assert (fast["phase"], fast["startups"], fast["requests"]["decode"] > 200) == ("ready", 2, True)


def test_generated_log_fast_path_equals_reducer(tmp_path: Path) -> None:
    out = tmp_path / "gen.log"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_log.py"), str(out), "--lines", "20000"],
                   check=True, timeout=60)
    data = out.read_bytes()
    reduced = ServerState()
    reduced.apply_all(parse_text(data))
    with out.open("rb") as fh:
        fast = state_to_dict(summarize_stream(fh, ServerState()))
    assert fast == state_to_dict(reduced)
    assert (fast["phase"], fast["startups"]) == ("ready", 2)
    assert fast["error"]["message"].startswith("SIGQUIT received.")
    assert sum(fast["requests"]["http"].values()) + fast["requests"]["prefill"] + fast["requests"]["decode"] > 18000
