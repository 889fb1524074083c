"""The vLLM log parser on the line forms the real CPU server here does not print (GPU builds, other ranks, older
builds, crashes), written from vLLM's format strings (../shared/reference/vllm.md); the real server's own log
is tests/test_vllm_real_server.py's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mtptui.engines.vllm.logparse import FIELDS, parse_text
from mtptui.engines.vllm.logparse.prefix import ranks_of
from mtptui.engines.vllm.logparse.recognise import looks_like_vllm
from mtptui.engines.vllm.state import VllmState, state_to_dict
from mtptui.engines.sglang.state.summary import state_to_dict as sglang_summary
from mtptui.engines.sglang.state import ServerState

STATS = ("Engine 000: Avg prompt throughput: 7.6 tokens/s, Avg generation throughput: 66.4 tokens/s, Running: 2 reqs, "
         "Waiting: 1 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 50.0%")
SPEC = ("SpecDecoding metrics: Mean acceptance length: 3.68, Accepted throughput: 6.00 tokens/s, Drafted throughput: "
        "6.26 tokens/s, Accepted: 483 tokens, Drafted: 504 tokens, Per-position acceptance rate: 0.978, 0.872, 0.833, "
        "Avg Draft acceptance rate: 95.8%")


def line(process: str | None, message: str, level: str = "INFO", where: str = "loggers.py:335") -> str:
    head = f"({process} pid=4242) " if process else ""
    return f"{head}{level} 12-01 19:58:38 [{where}] {message}"


@pytest.mark.parametrize(("process", "ranks"), [
    ("APIServer", {}), ("EngineCore", {}), ("EngineCore_DP0", {"DP": 0}), ("Worker_TP1", {"TP": 1}),
    ("Worker_PP0_TP1", {"PP": 0, "TP": 1}), ("VllmWorker-3", {"rank": 3}), ("Worker_DP1_PP0_TP2_EP5",
                                                                           {"DP": 1, "PP": 0, "TP": 2, "EP": 5}),
])
def test_every_prefix_form_gives_process_and_ranks(process, ranks) -> None:
    [event] = parse_text(line(process, STATS))
    assert (event.kind, event.process, event.ranks, event.ts) == ("engine_stats", process, ranks, "12-01 19:58:38")
    assert ranks_of(process) == ranks


def test_older_builds_without_process_or_brackets() -> None:
    [event] = parse_text(f"INFO 10-16 19:05:47 metrics.py:367] {STATS}")
    assert (event.kind, event.process, event.ts, event.fields["gen_throughput"]) == \
        ("engine_stats", None, "10-16 19:05:47", 66.4)


def test_colour_journal_and_ray_wrappers() -> None:
    coloured = "\x1b[0;36m(APIServer pid=9568)\x1b[0;0m \x1b[32mINFO\x1b[0m \x1b[90m12-01 19:58:38\x1b[0m " \
               "\x1b[90m[api_utils.py:286]\x1b[0m Resolved architecture: Qwen3ForCausalLM"
    journal = f"Dec 01 19:58:38 gpu1 vllm[9568]: {line('APIServer', 'Using max model len 8192')}"
    ray = ("(RayWorkerWrapper pid=77, ip=10.0.0.2) INFO 12-01 19:58:38 [gpu_worker.py:1] "
           "Loading weights took 1.20 seconds")
    kinds = [(e.kind, e.process) for e in parse_text("\n".join([coloured, journal, ray]))]
    assert kinds == [("architecture", "APIServer"), ("max_model_len", "APIServer"),
                     ("weight_load_end", "RayWorkerWrapper")]


def test_engine_stats_and_spec_decode_fields() -> None:
    stats, spec = parse_text(line("APIServer", STATS) + "\n" + line("APIServer", SPEC, where="metrics.py:120"))
    assert stats.fields == {"engine_index": 0, "prompt_throughput": 7.6, "gen_throughput": 66.4, "running_req": 2,
                            "queue_req": 1, "deferred_req": None, "preemptions": None, "kv_device": "GPU",
                            "token_usage": 0.01, "prefix_cache_hit_rate": 0.5, "external_prefix_cache_hit_rate": None}
    assert spec.fields == {"accept_len": 3.68, "accepted_throughput": 6.0, "drafted_throughput": 6.26,
                           "accepted_tokens": 483, "drafted_tokens": 504, "per_position": [0.978, 0.872, 0.833],
                           "accept_rate": 0.958, "depth": None}


def test_current_speculative_depth_and_the_older_spec_form() -> None:
    newer = parse_text(line("APIServer", SPEC + ", Current speculative depth: 2"))[0]
    older = parse_text(line(None, "SpecDecoding metrics: Draft acceptance rate: 69.6%, Mean acceptance length: 3.09, "
                                  "Accepted: 1234 tokens, Drafted: 1773 tokens, Per-position acceptance rate: 0.851, "
                                  "0.700, 0.539"))[0]
    assert newer.fields["depth"] == 2
    assert (older.fields["accept_rate"], older.fields["accept_len"], older.fields["per_position"]) == \
        (0.696, 3.09, [0.851, 0.7, 0.539])


def test_gpu_build_startup_lines() -> None:
    text = "\n".join([
        line("Worker_TP0", "Model loading took 4.2117 GiB memory and 5.310000 seconds", where="gpu_model_runner.py:1"),
        line("Worker_TP0", "Available KV cache memory: 1.50 GiB", where="gpu_worker.py:760"),
        line("EngineCore_DP0", "GPU KV cache size: 49,152 tokens", where="kv_cache_utils.py:1"),
        line("EngineCore_DP0", "Maximum concurrency for 8,192 tokens per request: 6.00x", where="kv_cache_utils.py:2"),
        "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 45%|████▌     | 30/67 [00:02<00:03, 12.1it/s]",
        line("Worker_TP0", "Graph capturing finished in 8 secs, took 0.31 GiB", where="gpu_model_runner.py:6582"),
        line("EngineCore_DP0", "init engine (profile, create kv cache, warmup model) took 19.94 s (compilation: "
                               "7.10 s)", where="core.py:396"),
        line("APIServer", "Starting vLLM API server 0 on http://0.0.0.0:8000", where="api_server.py:1"),
    ])
    events = parse_text(text)
    assert [e.kind for e in events] == ["weight_load_end", "kv_cache", "kv_cache", "kv_cache",
                                        "graph_capture_progress", "graph_capture_end", "engine_init_end",
                                        "server_listen"]
    assert events[0].fields["mem_usage_gb"] == 4.2117 and events[0].fields["elapsed_s"] == 5.31
    assert (events[1].fields["kv_size_gb"], events[2].fields["tokens"], events[2].fields["device"]) == \
        (1.5, 49152, "GPU")
    assert (events[3].fields["context_len"], events[3].fields["max_concurrency"]) == (8192, 6.0)
    assert (events[4].fields["done"], events[4].fields["total"]) == (30, 67)
    assert (events[5].fields["elapsed_s"], events[5].fields["mem_usage_gb"]) == (8.0, 0.31)
    assert (events[6].fields["elapsed_s"], events[6].fields["compile_s"]) == (19.94, 7.1)
    state = VllmState()
    for event in events:
        state.apply(event)
    memory = state_to_dict(state)["memory"]["TP0"]
    assert (memory["weights_gb"], memory["kv_gb"], memory["graphs_gb"]) == (4.2117, 1.5, 0.31)


FATAL = [
    line("EngineCore_DP0", "EngineCore failed to start.", "ERROR", "core.py:1510"),
    line("EngineCore_DP0", "Traceback (most recent call last):", "ERROR", "core.py:1510"),
    line("EngineCore_DP0", '  File "/v/vllm/v1/engine/core.py", line 1500, in run_engine_core', "ERROR",
         "core.py:1510"),
    line("EngineCore_DP0", "    engine_core = EngineCoreProc(*args, **kwargs)", "ERROR", "core.py:1510"),
    line("EngineCore_DP0", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                           "capacity of 47.41 GiB of which 1.02 GiB is free.", "ERROR", "core.py:1510"),
    line("APIServer", "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.", "ERROR",
         "core_client.py:600"),
    "Traceback (most recent call last):",
    '  File "/v/bin/vllm", line 8, in <module>',
    "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}",
]


def test_a_fatal_startup_error_keeps_its_root_cause() -> None:
    events = parse_text("\n".join(FATAL))
    errors = [e for e in events if e.kind == "error"]
    assert [e.fields["message"] for e in errors] == ["EngineCore failed to start.", FATAL[5].split("] ", 1)[1]]
    assert errors[0].fields["cause"].startswith("torch.OutOfMemoryError: CUDA out of memory.")
    assert errors[0].fields["last_frame"] == 'File "/v/vllm/v1/engine/core.py", line 1500, in run_engine_core'
    assert errors[1].fields["cause"].startswith("RuntimeError: Engine core initialization failed.")
    state = VllmState()
    for event in events:
        state.apply(event)
    summary = state_to_dict(state)
    assert summary["phase"] == "crashed" and summary["cause"]["cause"].startswith("torch.OutOfMemoryError")


def test_a_dead_engine_and_a_worker_runtime_error() -> None:
    text = "\n".join([line("Worker_TP1", "WorkerProc hit an exception.", "ERROR", "multiproc_executor.py:1060"),
                      line("Worker_TP1", "Traceback (most recent call last):", "ERROR", "multiproc_executor.py:1060"),
                      line("Worker_TP1", "RuntimeError: NCCL error: unhandled cuda error", "ERROR",
                           "multiproc_executor.py:1060"),
                      line("APIServer", "AsyncLLM output_handler failed.", "ERROR", "async_llm.py:1"),
                      line("APIServer", "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. "
                                        "See stack trace (above) for the root cause.", "ERROR", "async_llm.py:1")])
    worker, dead = [e for e in parse_text(text) if e.kind == "error"]
    assert worker.ranks == {"TP": 1} and worker.fields["cause"] == "RuntimeError: NCCL error: unhandled cuda error"
    assert dead.fields["cause"].startswith("vllm.v1.engine.exceptions.EngineDeadError")
    state = VllmState()
    for event in parse_text(text):
        state.apply(event)
    assert state.phase == "crashed"


def test_lines_of_unknown_shape_give_no_event_and_no_error() -> None:
    garbage = ["(APIServer pid=x) INFO nonsense", "Engine 000: Avg prompt throughput: lots", "\x00\xff" * 50,
               line("APIServer", "SpecDecoding metrics: Mean acceptance length: nan%"), "{" * 10_000, ""]
    events = parse_text("\n".join(garbage))
    assert all(e.kind in FIELDS for e in events)
    assert [e.kind for e in events] == ["spec_decode"] and events[0].fields["accept_len"] is None


def test_every_event_has_the_contract_shape() -> None:
    text = "\n".join([line("APIServer", STATS), line("APIServer", SPEC), *FATAL,
                      'INFO:     127.0.0.1:5 - "GET /health HTTP/1.1" 200 OK',
                      "INFO:     Application startup complete."])
    for event in parse_text(text):
        out = event.to_dict()
        assert list(out)[:5] == ["kind", "ts", "ranks", "line", "process"]
        assert set(out) - {"kind", "ts", "ranks", "line", "process"} == set(FIELDS[event.kind])


def test_real_sglang_logs_are_not_taken_for_vllm(real_logs) -> None:
    logs = sorted(real_logs.glob("*.log"))
    assert logs
    for path in logs:
        assert not looks_like_vllm(path.read_bytes()[:1 << 16].decode("utf-8", "replace")), path.name


def test_the_vllm_summary_has_the_sglang_summarys_top_level_keys() -> None:
    vllm = state_to_dict(VllmState())
    assert set(sglang_summary(ServerState())) <= set(vllm)


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui", *args], input=stdin, capture_output=True, text=True,
                          timeout=60)


def test_parse_log_recognises_vllm_and_engine_forces_it() -> None:
    text = "\n".join([line("APIServer", STATS), line("APIServer", SPEC)]) + "\n"
    auto = [json.loads(x) for x in _cli("parse-log", stdin=text).stdout.splitlines()]
    assert [(e["engine"], e["kind"]) for e in auto] == [("vllm", "engine_stats"), ("vllm", "spec_decode")]
    forced = _cli("parse-log", "--engine", "sglang", stdin=text)
    assert forced.returncode == 0 and forced.stdout == ""  # SGLang's parser finds none of its lines there
    summary = json.loads(_cli("parse-log", "--summary", "--engine", "vllm", stdin=text).stdout)
    assert summary["engine"] == "vllm" and summary["last_accept_len"] == 3.68


def test_bad_input_is_one_sentence() -> None:
    for args in (("flags", "lint", "--engine", "vllm", "--", "m", "--speculative-config", "{method: ngram}"),
                 ("flags", "lint", "--engine", "vllm", "--", "m", "--speculative-config",
                  '{"method": "nextn", "num_speculative_tokens": 2}'),
                 ("flags", "lint", "--engine", "vllm"), ("flags", "lint", "--engine", "vllm", "--version", "9.9",
                                                         "--", "m"),
                 ("parse-log", "/no/such/file")):
        run = _cli(*args)
        assert run.returncode != 0 and "Traceback" not in run.stderr + run.stdout, args
        assert len((run.stdout + run.stderr).strip().splitlines()) <= 2, (args, run.stdout, run.stderr)


async def test_the_dashboards_pump_reads_vllm_through_the_parsers_public_api() -> None:
    """The pump takes either engine's parser (feed_lines, holding, flush_pending): a vLLM crash's record is held,
    its lines are errors, and the error leaves with the feed's end, its root cause whole."""
    from mtptui.engines.vllm.logparse import LogParser
    from mtptui.ui import messages
    from mtptui.ui.logbuffer import ERROR, INFO
    from mtptui.ui.pump import FeedPump
    from tests.recorded_feed import RecordedFeed

    posted: list = []
    await FeedPump(RecordedFeed([line("EngineCore", STATS), *FATAL[:5]], hold=False), posted.append,
                   new_parser=LogParser).run()
    batches = [m for m in posted if isinstance(m, messages.LogBatch)]
    assert [line.level for m in batches for line in m.lines] == [INFO] + [ERROR] * 5
    assert batches[0].holding and not batches[-1].holding
    (error,) = [e for m in batches for e in m.events if e.kind == "error"]
    assert error.fields["cause"].startswith("torch.OutOfMemoryError: CUDA out of memory.")
