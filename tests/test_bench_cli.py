"""`mtptui bench` on bad input: one sentence, exit 1, no traceback."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", *args], capture_output=True,
                          text=True, timeout=60)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_sentence(result: subprocess.CompletedProcess, code: int = 1) -> str:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def test_unreachable_server_is_one_sentence() -> None:
    err = one_sentence(run_cli("--url", f"http://127.0.0.1:{free_port()}", "--requests", "1"))
    assert err.startswith("mtptui: cannot reach the server at http://127.0.0.1:") and "cannot connect" in err


def test_host_over_ssh_that_cannot_be_reached_is_one_sentence(tmp_path) -> None:
    host = tmp_path / "far.toml"
    host.write_text(f'name = "far"\napi_url = "http://127.0.0.1:30000"\n[ssh]\ntarget = "127.0.0.1"\n'
                    f'port = {free_port()}\n[server]\nmanager = "systemd"\nunit = "x.service"\n'
                    '[log]\nkind = "journal"\n')
    err = one_sentence(run_cli("far", "--config", str(host)))
    assert err.startswith("mtptui: cannot connect to 127.0.0.1:")


@pytest.mark.parametrize("args, message", [
    ((), "give either a HOST or --url URL"),
    (("ct129", "--url", "http://127.0.0.1:1"), "give either a HOST or --url URL"),
    (("--url", "127.0.0.1:30000"), "must start with http://"),
    (("--url", "http://127.0.0.1:1", "--concurrency", "0"), "--concurrency must be positive"),
    (("--url", "http://127.0.0.1:1", "--prompts", "nosuch"), "unknown prompt set 'nosuch'"),
])
def test_bad_arguments(args: tuple, message: str) -> None:
    assert message in one_sentence(run_cli(*args))


def test_unknown_host_is_a_config_error() -> None:
    assert "unknown host 'nosuch'" in one_sentence(run_cli("nosuch"), code=2)


CONTRACT_SUMMARY = {"requests_ok", "requests_failed", "duration_s", "output_tok_s", "request_tok_s", "accept_len",
                    "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}
CONTRACT_REQUEST = {"ok", "error", "ttft_ms", "e2e_ms", "output_tokens", "reasoning_tokens", "accept_len"}
CONTRACT_FINGERPRINT = {"engine", "server_version", "launch_flags", "model", "sampling", "prompt_set", "concurrency"}


def test_json_contract_history_and_comparison(sim_restored, tmp_path: Path, isolated_dirs: Path) -> None:
    out = tmp_path / "run.json"
    args = ("--url", sim_restored.url, "--requests", "2", "--concurrency", "2", "--max-tokens", "16")
    env = {**os.environ}
    first = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", *args, "--json", str(out)],
                           capture_output=True, text=True, timeout=120, env=env)
    assert first.returncode == 0, first.stderr
    assert "Output throughput (tok/s):" in first.stdout and "TPOT (ms)" in first.stdout
    assert "compare: no earlier run" in first.stdout and "2/2" in first.stderr
    doc = json.loads(out.read_text())
    assert CONTRACT_FINGERPRINT <= set(doc["fingerprint"]) and CONTRACT_SUMMARY <= set(doc["summary"])
    for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"):
        assert set(doc["summary"][key]) == {"mean", "median", "p90", "p95", "p99"}
        assert all(isinstance(v, float) for v in doc["summary"][key].values())
    assert len(doc["requests"]) == 2 and all(CONTRACT_REQUEST <= set(r) and r["ok"] for r in doc["requests"])
    assert doc["fingerprint"]["sampling"]["temperature"] == 0.0 and doc["fingerprint"]["concurrency"] == 2
    assert (doc["fingerprint"]["engine"], doc["fingerprint"]["server_version"]) == ("sglang", "0.5.12.post1")
    assert f"{sim_restored.url} (SGLang 0.5.12.post1)" in first.stdout  # the Target row
    # 0.5.12.post1 has no per-request acceptance and no verify counter, and --url follows no log: the table says
    # which of the weaker sources gave the figure, or that none did
    row = re.search(r"Accept length:\s+(.*)", first.stdout)[1]
    if doc["summary"]["accept_len"] is None:
        assert row == f"- ({doc['summary']['accept_len_note']})" and "no server log was followed" in row
    else:
        assert doc["summary"]["accept_len_source"] in ("spec_accept_length gauge", "server_info average")
        assert row == f"{doc['summary']['accept_len']:.2f} ({doc['summary']['accept_len_source']})"
    stored = (isolated_dirs / "xdg_data_home" / "mtptui" / "bench-history.jsonl").read_text().splitlines()
    assert len(stored) == 1 and json.loads(stored[0])["summary"] == doc["summary"]
    second = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", *args, "--compare", "--no-history"],
                            capture_output=True, text=True, timeout=120, env=env)
    assert second.returncode == 0, second.stderr
    assert re.search(r"compare: [\d.]+ tok/s now vs [\d.]+ before \([+-][\d.]+ %\): (no-change|regression|improv)",
                     second.stdout), second.stdout
    assert "same server version and launch flags" in second.stdout
    assert len((isolated_dirs / "xdg_data_home" / "mtptui" / "bench-history.jsonl").read_text().splitlines()) == 1
