"""The simulated vLLM on what a CPU cannot show: the mission's 27B with MTP over two GPUs, speculation by
method, the GPU's memory limits, the engine core's death, a stop by signal. Its log is read by the knowledge
layer's parser and its /metrics by the metrics reader, as a real vLLM's are (tests/test_vllm_conformance.py
holds it to the real server on the CPU build's tiny model)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from mtptui.engines.vllm import api
from mtptui.engines.vllm.logparse import parse_text
from mtptui.engines.vllm.metrics import parse_metrics, speculation
from mtptui.engines.vllm.sim.boot import decode_model
from mtptui.engines.vllm.sim.launch import settings_for
from mtptui.engines.vllm.state import VllmState, state_to_dict
from mtptui.sim.decode import DecodeModel
from tests.decode_expected import mean_accept_len, tokens_per_second
from tests.simserver import SimServer, launch_sim

READY = "Application startup complete."
MISSION = "/data/models/Qwen3.6-27B"
MTP3 = json.dumps({"method": "mtp", "num_speculative_tokens": 3})
MISSION_ARGV = [MISSION, "--tensor-parallel-size", "2", "--max-model-len", "131072", "--max-num-seqs", "16",
                "--speculative-config", MTP3, "--served-model-name", "qwen"]
FAST = {"VLLM_LOG_STATS_INTERVAL": "1"}


def _start(tmp_path: Path, argv: list[str], env: dict[str, str] | None = None, **options) -> SimServer:
    sim = launch_sim(tmp_path, argv, sim_args=["--engine", "vllm", *options.pop("sim_args", [])],
                     env={**FAST, **(env or {})}, **options)
    return sim


def _ready(sim: SimServer) -> SimServer:
    assert sim.wait_for(READY, 60), sim.log_text()[-3000:]
    return sim


def _chat(sim: SimServer, tokens: int = 200, prompt: str = "Write a red-black tree in Python.",
          **extra) -> httpx.Response:
    body = {"model": "qwen", "messages": [{"role": "user", "content": prompt}],
            "max_tokens": tokens, "temperature": 0, **extra}
    return httpx.post(f"{sim.url}{api.CHAT}", json=body, timeout=120)


@pytest.fixture(scope="module")
def mission(tmp_path_factory: pytest.TempPathFactory):
    """The mission's model on two 48 GB GPUs, 3 MTP tokens, after four chats."""
    sim = _ready(_start(tmp_path_factory.mktemp("vllm-mission"), MISSION_ARGV))
    try:
        replies = [_chat(sim, 160) for _ in range(4)]
        deadline = time.monotonic() + 30
        while "SpecDecoding metrics:" not in sim.log_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        yield sim, replies
    finally:
        sim.stop()


def test_the_mission_starts_as_vllm_does_on_two_gpus(mission) -> None:
    sim, _ = mission
    events = parse_text(sim.log_text())
    kinds = list(dict.fromkeys(e.kind for e in events if e.kind in (
        "banner", "launch_args", "architecture", "engine_config", "weight_load_begin", "weight_load_end", "kv_cache",
        "graph_capture_end", "engine_init_end", "server_listen", "server_ready")))
    assert kinds == ["banner", "launch_args", "architecture", "engine_config", "weight_load_begin",
                     "weight_load_end", "kv_cache", "graph_capture_end", "engine_init_end", "server_listen",
                     "server_ready"]
    assert {"Worker_TP0", "Worker_TP1", "EngineCore", "APIServer"} <= {e.process for e in events}
    config = next(e.fields for e in events if e.kind == "engine_config")
    assert (config["tensor_parallel_size"], config["speculative_method"], config["num_speculative_tokens"]) == \
        (2, "mtp", 3)
    kv = next(e.fields for e in events if e.kind == "kv_cache" and e.fields["tokens"])
    assert kv["device"] == "GPU" and kv["context_len"] == 131072 and kv["max_concurrency"] > 1
    summary = state_to_dict(_state(events))
    assert (summary["engine"], summary["phase"], summary["version"]) == ("vllm", "ready", "0.32.0")
    assert summary["memory"]["TP1"]["weights_gb"] > 25  # half of 51 GiB, plus the MTP head


def _state(events) -> VllmState:
    state = VllmState()
    for event in events:
        state.apply(event)
    return state


def test_mtp_accepts_by_position_and_the_counters_agree_with_the_log(mission) -> None:
    sim, replies = mission
    assert all(r.status_code == 200 for r in replies)
    metrics = parse_metrics(httpx.get(f"{sim.url}{api.METRICS}").text)
    spec = speculation(None, metrics)
    assert spec is not None and spec.per_position is not None and len(spec.per_position) == 3
    assert spec.per_position == sorted(spec.per_position, reverse=True)
    for measured, expected in zip(spec.per_position, (0.75, 0.70, 0.60)):  # the mission's MTP head
        assert abs(measured - expected) < 0.1
    truth = httpx.get(f"{sim.url}/sim/requests").json()["requests"]
    assert metrics.get(api.DRAFTS) == sum(r["verify_steps"] for r in truth)
    assert metrics.get(api.ACCEPTED) == sum(r["correct_drafts"] for r in truth)
    assert metrics.get(api.GENERATION_TOKENS) == sum(r["completion_tokens"] for r in truth)
    logged = [e.fields for e in parse_text(sim.log_text()) if e.kind == "spec_decode"]
    assert logged and all(len(e["per_position"]) == 3 for e in logged)


def test_speculation_by_method_has_its_own_acceptance_and_cost() -> None:
    def model(method: str, tokens: int = 3) -> DecodeModel:
        spec = json.dumps({"method": method, "num_speculative_tokens": tokens})
        extra = [] if method in ("ngram", "mtp") else ["--speculative-config",
                                                       json.dumps({"method": method, "model": "org/draft",
                                                                   "num_speculative_tokens": tokens})]
        argv = [MISSION, "-tp", "2", "--speculative-config", spec] if not extra else [MISSION, "-tp", "2", *extra]
        settings = settings_for(argv)
        assert not isinstance(settings, int)
        return decode_model(settings)

    mtp, eagle3, ngram, draft = model("mtp"), model("eagle3"), model("ngram"), model("draft_model")
    assert mtp == DecodeModel(3, 1, 4)  # the same MTP head the SGLang simulator's NEXTN runs
    assert [m.drafter.kind for m in (mtp, eagle3, ngram, draft)] == ["mtp", "eagle3", "ngram", "draft_model"]
    assert mean_accept_len(ngram) < mean_accept_len(draft) < mean_accept_len(mtp)
    assert ngram.step_seconds(1) < mtp.step_seconds(1) < draft.step_seconds(1)  # a lookup is nearly free
    assert tokens_per_second(model("mtp", 1)) < tokens_per_second(mtp)


def _refuse(tmp_path: Path, argv: list[str], *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mtptui", "sim", "--engine", "vllm", *options, "--", *argv],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_refused_launches_are_vllms(tmp_path: Path) -> None:
    unknown = _refuse(tmp_path, [MISSION, "--no-such-flag"])
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr.splitlines()[-1] == "vllm: error: unrecognized arguments: --no-such-flag"
    bounds = _refuse(tmp_path, [MISSION, "--max-num-seqs", "0"])
    assert bounds.returncode == 1
    assert bounds.stderr.splitlines()[-7:-4] == [
        "pydantic_core._pydantic_core.ValidationError: 2 validation errors for SchedulerConfig",
        "max_num_batched_tokens",
        "  Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]"]
    assert [e.kind for e in parse_text(bounds.stdout)] == ["banner", "banner", "launch_args", "architecture",
                                                           "max_model_len"]  # the banner's version and model
    legacy = _refuse(tmp_path, [MISSION, "--speculative-model", "org/draft"])
    assert legacy.returncode == 2 and "unrecognized arguments: --speculative-model" in legacy.stderr


def test_a_start_that_does_not_fit_dies_with_its_root_cause(tmp_path: Path) -> None:
    too_long = _refuse(tmp_path, [MISSION, "-tp", "2", "--max-model-len", "262144", "--gpu-memory-utilization",
                                  "0.7"], "--speed", "500")
    assert too_long.returncode == 1
    errors = [e for e in parse_text(too_long.stdout + too_long.stderr) if e.kind == "error"]
    assert errors[0].fields["message"] == "EngineCore failed to start."
    assert errors[0].fields["cause"].startswith("ValueError: To serve at least one request with the model's max seq "
                                                "len (262144)")
    assert too_long.stderr.splitlines()[-1].startswith("RuntimeError: Engine core initialization failed.")
    oom = _refuse(tmp_path, [MISSION], "--speed", "500", "--sim-gpu-mem-gb", "24")
    causes = [e.fields["cause"] for e in parse_text(oom.stdout) if e.kind == "error"]
    assert oom.returncode == 1 and any(c and c.startswith("torch.OutOfMemoryError: CUDA out of memory") for c in causes)
    assert state_to_dict(_state(parse_text(oom.stdout)))["phase"] == "crashed"


def test_the_engine_core_dies_then_health_is_503_and_the_watchdog_stops_the_server(tmp_path: Path) -> None:
    sim = _ready(_start(tmp_path, MISSION_ARGV, speed=500))
    try:
        assert httpx.get(f"{sim.url}{api.HEALTH}").status_code == 200
        httpx.post(f"{sim.url}/sim/engine-death")
        assert httpx.get(f"{sim.url}{api.HEALTH}").status_code == 503
        dead = _chat(sim, 8)
        assert dead.status_code == 500 and dead.json()["error"]["type"] == "InternalServerError"
        assert sim.wait_exit(30) == 0  # vLLM's watchdog: 5 s after the engine's death
    finally:
        sim.stop()
    causes = [e.fields["cause"] for e in parse_text(sim.log_text()) if e.kind == "error"]
    assert causes[0].startswith("RuntimeError: CUDA error: an illegal memory access")
    assert any(c.startswith("vllm.v1.engine.exceptions.EngineDeadError") for c in causes)


def test_keep_alive_on_engine_death_and_the_shutdown_lines(tmp_path: Path) -> None:
    sim = _ready(_start(tmp_path, MISSION_ARGV, speed=500, env={"VLLM_KEEP_ALIVE_ON_ENGINE_DEATH": "1"}))
    try:
        httpx.post(f"{sim.url}/sim/engine-death")
        time.sleep(6)
        assert sim.proc.poll() is None and httpx.get(f"{sim.url}{api.HEALTH}").status_code == 503
    finally:
        status = sim.stop()
    log = sim.log_text()
    assert status == 0 and "[shutdown] EngineCore: trigger received signal=SIGTERM" in log
    assert log.index("[shutdown] API server: shutting down FastAPI HTTP server") < log.index(
        "Application shutdown complete.")


def test_streamed_chat_with_usage_and_the_prefix_cache(tmp_path: Path) -> None:
    sim = _ready(_start(tmp_path, MISSION_ARGV, speed=500))
    try:
        long = "Write a red-black tree in Python with insert, delete, search and an invariant check. " * 4
        first = _chat(sim, 16, long, stream=True, stream_options={"include_usage": True})
        chunks = [json.loads(line[6:]) for line in first.text.splitlines() if line.startswith("data: {")]
        again = _chat(sim, 16, long)
        metrics = parse_metrics(httpx.get(f"{sim.url}{api.METRICS}").text)
    finally:
        sim.stop()
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 16
    assert chunks[-1]["system_fingerprint"].startswith("vllm-0.32.0-tp2-")
    assert again.json()["usage"]["prompt_tokens"] == chunks[-1]["usage"]["prompt_tokens"]
    hits = metrics.get("vllm:prefix_cache_hits")
    assert hits and hits % 16 == 0 and metrics.get(api.REQUEST_SUCCESS) == 2  # whole blocks of the prompt seen before


def test_the_engine_is_chosen_by_the_registry(tmp_path: Path) -> None:
    wrong = subprocess.run([sys.executable, "-m", "mtptui", "sim", "--engine", "nope", "--", MISSION],
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "invalid choice: 'nope'" in wrong.stderr
    empty = subprocess.run([sys.executable, "-m", "mtptui", "sim", "--engine", "vllm"], capture_output=True,
                           text=True, timeout=60)
    assert empty.returncode != 0 and "Traceback" not in empty.stderr
    assert empty.stderr.startswith("mtptui: give the model and vLLM's flags after --")


def test_sigterm_with_a_shutdown_timeout_drains_the_running_request(tmp_path: Path) -> None:
    sim = _ready(_start(tmp_path, [*MISSION_ARGV, "--shutdown-timeout", "30"], speed=500))
    with httpx.Client(timeout=60) as client:
        body = {"model": "qwen", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 60, "stream": True}
        with client.stream("POST", f"{sim.url}{api.CHAT}", json=body) as reply:
            lines = reply.iter_lines()
            next(lines)  # the role chunk: the request is running
            sim.proc.send_signal(15)
            rest = [line for line in lines if line]
    assert sim.wait_exit(30) == 0 and rest[-1] == "data: [DONE]"
    finished = [json.loads(line[6:]) for line in rest if line.startswith("data: {")]
    assert finished[-1]["choices"][0]["finish_reason"] == "length"  # all 60 tokens, not aborted
    assert "stopping engine client mode=drain timeout=30s" in sim.log_text()


def test_an_unknown_vllm_version_is_one_sentence(tmp_path: Path) -> None:
    done = _refuse(tmp_path, [MISSION], "--sim-version", "0.1.0")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip() == "mtptui: mtptui has no flag table for vLLM 0.1.0 (it knows 0.32.0)"
