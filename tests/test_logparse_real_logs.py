"""The real SGLang logs in ../shared/real-logs, read in place: exact events and the state they leave."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mtptui.engines.sglang.logparse import LogParser, parse_text
from mtptui.engines.sglang.state import ServerState, state_to_dict
from mtptui.engines.sglang.state.scan import summarize_stream
from tests.conftest import REAL_LOGS
from tests.logparse_contract import ev


def log(prefix: str) -> Path:
    (path,) = REAL_LOGS.glob(f"{prefix}-*.log")
    return path


def events_of(prefix: str) -> list[dict]:
    return [event.to_dict() for event in parse_text(log(prefix).read_bytes())]


def summary_of(prefix: str) -> dict:
    with log(prefix).open("rb") as fh:
        return state_to_dict(summarize_stream(fh, ServerState()))


def test_01_eagle3_decode_lines() -> None:
    events = events_of("01")
    assert events[0] == ev("prefill", "2025-10-22 10:27:56", {"TP": 0}, new_seq=1, new_token=28, cached_token=0,
                           token_usage=0.0, running_req=0, queue_req=0)
    decodes = [(e["line"], e["tokens"], e["accept_len"], e["accept_rate"], e["gen_throughput"]) for e in events[1:]]
    assert decodes == [(2, 108, 2.17, 0.54, 0.39), (3, 186, 1.95, 0.49, 178.86), (4, 258, 1.80, 0.45, 165.41),
                       (5, 340, 2.05, 0.51, 188.68), (6, 412, 1.80, 0.45, 165.59)]
    assert {(e["kind"], e["running_req"], e["graph"], e["queue_req"], e["ts"][:10]) for e in events[1:]} == \
        {("decode", 1, True, 0, "2025-10-22")}


def test_01_summary_excludes_the_warm_up_batch() -> None:
    summary = summary_of("01")
    assert summary["phase"] == "ready"
    assert summary["steady_gen_throughput"] == pytest.approx((178.86 + 165.41 + 188.68 + 165.59) / 4)
    assert summary["steady_batches"] == 4
    assert (summary["last_accept_len"], summary["last_accept_rate"]) == (1.80, 0.45)
    assert summary["series"]["gen_throughput"] == [0.39, 178.86, 165.41, 188.68, 165.59]
    assert summary["series"]["accept_len"] == [2.17, 1.95, 1.80, 2.05, 1.80]
    assert summary["requests"] == {"http": {}, "prefill": 1, "decode": 5, "finished": 0}


def test_04_tp1_has_no_rank_tag() -> None:
    events = events_of("04")
    assert [e["kind"][0] for e in events] == list("dhphphphhh")
    assert events[0] == ev("decode", "2026-04-05 20:02:51", running_req=32, tokens=11179, token_usage=0.08,
                           graph=True, gen_throughput=1635.11, queue_req=0)
    assert [(e["line"], e["new_token"], e["input_throughput"]) for e in events if e["kind"] == "prefill"] == \
        [(3, 158, 559.53), (5, 290, 1670.03), (7, 160, 4099.38)]
    access = [e for e in events if e["kind"] == "http_access"]
    assert [e["client"] for e in access] == [f"127.0.0.1:{port}" for port in (40052, 40086, 40180, 40130, 40232,
                                                                             40254)]
    assert {(e["method"], e["path"], e["status"]) for e in access} == {("POST", "/v1/chat/completions", 200)}
    assert all(e["ranks"] == {} for e in events)


def test_04_summary_counts_requests() -> None:
    summary = summary_of("04")
    assert summary["requests"] == {"http": {"200": 6}, "prefill": 3, "decode": 1, "finished": 0}
    assert summary["steady_gen_throughput"] is None  # the only decode batch is the warm-up one
    assert summary["last_decode"]["gen_throughput"] == 1635.11


def test_09_two_kv_pools_per_rank() -> None:
    events = events_of("09")
    assert [e["kind"] for e in events] == ["kv_cache", "memory_pool_end"] * 4
    assert events[0] == ev("kv_cache", "2026-09-12 00:22:48", {"TP": 0}, dtype="torch.float8_e4m3fn", tokens=454112,
                           k_size_gb=3.46, v_size_gb=3.46)
    assert [e["avail_mem_gb"] for e in events[1::2]] == [8.40, 6.23, 7.63, 5.46]
    assert [e["ranks"] for e in events] == [{"TP": 0}] * 4 + [{"TP": 1}] * 4


def test_09_summary_memory_table_target_and_draft_pools() -> None:
    summary = summary_of("09")
    assert summary["phase"] == "allocating_pools"
    assert set(summary["memory"]) == {"TP0", "TP1"}
    for rank, avail in (("TP0", 6.23), ("TP1", 5.46)):
        row = summary["memory"][rank]
        assert (row["kv_tokens"], row["kv_gb"], row["draft_kv_gb"], row["avail_gb"]) == (454112, 6.92, 2.16, avail)


def test_17_shards_weights_and_mla_pool() -> None:
    events = events_of("17")
    assert [(e["line"], e["kind"]) for e in events] == [
        (6, "weight_load_begin"), (8, "shard_progress"), (9, "shard_progress"), (10, "shard_progress"),
        (12, "weight_load_end"), (13, "kv_cache"), (14, "kv_cache")]
    assert [(e["done"], e["total"], e["percent"]) for e in events[1:4]] == [(0, 163, 0), (1, 163, 1),
                                                                           (163, 163, 100)]
    assert events[4] == ev("weight_load_end", "2025-06-18 15:20:48", {"TP": 0}, line=12,
                           model_type="DeepseekV3ForCausalLM", dtype="torch.bfloat16", avail_mem_gb=13.97,
                           mem_usage_gb=79.54)
    assert events[6] == ev("kv_cache", "2025-06-18 15:20:51", {"TP": 7}, line=14, tokens=69931, kv_size_gb=4.58)


def test_17_summary() -> None:
    summary = summary_of("17")
    assert summary["shards"] == {"desc": "Multi-thread loading shards", "done": 163, "total": 163, "percent": 100}
    assert summary["memory"]["TP0"]["weights_gb"] == 79.54
    assert summary["memory"]["TP0"]["model_type"] == "DeepseekV3ForCausalLM"
    assert summary["memory"]["TP4"]["kv_gb"] == summary["memory"]["TP7"]["kv_gb"] == 4.58
    assert summary["started_at"] == "2025-06-18 15:19:24"


def test_21_other_logging_config_and_bare_uvicorn() -> None:
    events = events_of("21")
    assert [e["kind"][0] for e in events] == list("dhpdhpdh")
    assert [e["ts"] for e in events if e["kind"] != "http_access"] == [
        "2026-06-07 10:59:31,659", "2026-06-07 10:59:31,843", "2026-06-07 10:59:32,140", "2026-06-07 10:59:32,431",
        "2026-06-07 10:59:32,625"]
    assert [(e["tokens"], e["gen_throughput"], e["queue_req"]) for e in events if e["kind"] == "decode"] == \
        [(227, 126.29, 0), (40, 83.17, 0), (26, 82.34, 0)]
    assert events[1] == ev("http_access", line=2, client="127.0.0.1:49272", method="POST", path="/v1/audio/speech",
                           status=200)
    assert events[2] == ev("prefill", "2026-06-07 10:59:31,843", line=3, new_seq=1, new_token=1, cached_token=7,
                           token_usage=0.0, running_req=0, queue_req=0)


def test_21_summary() -> None:
    summary = summary_of("21")
    assert summary["steady_gen_throughput"] == pytest.approx((83.17 + 82.34) / 2)
    assert summary["requests"] == {"http": {"200": 3}, "prefill": 2, "decode": 3, "finished": 0}


def test_25_crash_sigquit_then_scheduler_traceback() -> None:
    """The paste starts inside one traceback (its bare exception line is an error) and stops inside another."""
    events = events_of("25")
    lines = log("25").read_text().splitlines()
    assert events == [
        ev("error", line=7, message=lines[6]),
        ev("error", "2025-02-18 14:31:01", line=9,
           message="Received sigquit from a child proces. It usually means the child failed."),
        ev("error", "2025-02-18 14:31:01", {"TP": 3}, line=10,
           message="Scheduler hit an exception: Traceback (most recent call last):",
           traceback="\n".join(lines[10:]), truncated=True,
           last_frame='File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1089, in run_batch'),
    ]
    assert lines[6].startswith("NameError: name 'sgl_build_tree_kernel' is not defined.")
    traceback = events[2]["traceback"].splitlines()
    assert len(traceback) == 11
    assert traceback[0].startswith('  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1827')
    assert traceback[-2] == "    ) = self.draft_worker.forward_batch_speculative_generation(batch)"


def test_25_summary_is_crashed() -> None:
    summary = summary_of("25")
    assert summary["phase"] == "crashed"
    assert summary["error"]["message"] == "Scheduler hit an exception: Traceback (most recent call last):"
    assert summary["error"]["ranks"] == {"TP": 3}
    assert summary["error"]["traceback"].count("\n") == 10


@pytest.mark.parametrize("prefix", ["01", "04", "09", "17", "21", "25"])
def test_every_real_log_byte_by_byte_equals_one_feed(prefix: str) -> None:
    data = log(prefix).read_bytes()
    parser = LogParser()
    events = [event for byte in range(len(data)) for event in parser.feed(data[byte:byte + 1])] + parser.close()
    assert [e.to_dict() for e in events] == [e.to_dict() for e in parse_text(data)]


@pytest.mark.parametrize("prefix", ["01", "04", "09", "17", "21", "25"])
def test_summary_fast_path_equals_event_reducer(prefix: str) -> None:
    data = log(prefix).read_bytes()
    state = ServerState()
    state.apply_all(parse_text(data))
    assert state_to_dict(summarize_stream(io.BytesIO(data), ServerState())) == state_to_dict(state)
