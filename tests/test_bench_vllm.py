"""`mtptui bench --url` against a vLLM server (the simulated one, `mtptui sim --engine vllm`: the real one's
metric families, tests/test_vllm_conformance.py): vLLM's /server_info does not exist, so the bench knows it
speculates from its `vllm:spec_decode_*` counters, and its accept length over the run is theirs,
1 + Δaccepted / Δdrafts, named ``metrics``. (tests/test_lab_vllm_real.py holds this to the real server.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from mtptui.engines.vllm import api
from mtptui.engines.vllm.metrics import parse_metrics, speculation
from tests.simserver import launch_sim
from tests.sshd import ROOT

READY = "Application startup complete."
ARGV = ["/data/models/Qwen3.6-27B", "--tensor-parallel-size", "2", "--max-model-len", "32768", "--served-model-name",
        "qwen", "--speculative-config", json.dumps({"method": "mtp", "num_speculative_tokens": 3})]


def test_the_bench_gives_a_vllm_servers_accept_length_from_its_spec_decode_counters(tmp_path: Path) -> None:
    sim = launch_sim(tmp_path, ARGV, sim_args=["--engine", "vllm"])
    try:
        assert sim.wait_for(READY, 60), sim.log_text()[-3000:]
        before = parse_metrics(httpx.get(f"{sim.url}{api.METRICS}").text)
        out = tmp_path / "bench.json"
        run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", "--url", sim.url, "--requests", "2",
                              "--max-tokens", "96", "--warmup", "0", "--no-history", "--json", str(out)],
                             capture_output=True, text=True, timeout=180, cwd=ROOT)
        after = parse_metrics(httpx.get(f"{sim.url}{api.METRICS}").text)
    finally:
        sim.stop()
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    summary = result["summary"]
    assert (result["fingerprint"]["engine"], result["fingerprint"]["server_version"]) == ("vllm", "0.32.0")
    assert f"{sim.url} (vLLM 0.32.0)" in run.stdout, run.stdout  # the Target row names the engine measured
    assert "sglang" not in run.stdout.lower()
    truth = speculation(before, after)
    assert truth is not None and truth.drafts > 0 and truth.accept_len is not None
    assert (summary["requests_ok"], summary["accept_len_source"]) == (2, "metrics")
    assert summary["accept_len"] == truth.accept_len and summary["accept_len_note"] is None
    assert f"{summary['accept_len']:.2f} (metrics)" in run.stdout


def test_a_vllm_server_without_speculation_is_said_to_run_without_it(tmp_path: Path) -> None:
    sim = launch_sim(tmp_path, ARGV[:-2], sim_args=["--engine", "vllm"])
    try:
        assert sim.wait_for(READY, 60), sim.log_text()[-3000:]
        out = tmp_path / "bench.json"
        run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", "--url", sim.url, "--requests", "1",
                              "--max-tokens", "32", "--warmup", "0", "--no-history", "--json", str(out)],
                             capture_output=True, text=True, timeout=180, cwd=ROOT)
    finally:
        sim.stop()
    assert run.returncode == 0, run.stderr
    summary = json.loads(out.read_text())["summary"]
    assert (summary["accept_len"], summary["accept_len_note"]) == \
        (None, "the server runs without speculative decoding")
