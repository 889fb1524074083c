"""`mtptui parse-log` as a user runs it: files, stdin, --summary, bad paths, a closed pipe."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REAL_LOGS


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "parse-log", *args], input=stdin,
                          capture_output=True, timeout=60)


def log(prefix: str) -> Path:
    (path,) = REAL_LOGS.glob(f"{prefix}-*.log")
    return path


def json_lines(out: bytes) -> list[dict]:
    return [json.loads(line) for line in out.decode().splitlines()]


def test_file_to_json_lines() -> None:
    result = run(str(log("04")))
    assert result.returncode == 0 and result.stderr == b""
    events = json_lines(result.stdout)
    assert [e["kind"] for e in events].count("http_access") == 6 and len(events) == 10
    assert list(events[1]) == ["kind", "ts", "ranks", "line", "client", "method", "path", "status", "engine"]
    assert events[1] == {"kind": "http_access", "ts": "2026-04-05 20:02:51", "ranks": {}, "line": 2,
                         "client": "127.0.0.1:40052", "method": "POST", "path": "/v1/chat/completions", "status": 200,
                         "engine": "sglang"}


def test_stdin_when_no_file() -> None:
    result = run(stdin=log("25").read_bytes())
    assert result.returncode == 0
    # line 7 is the bare `NameError: …` that ends the traceback whose start the paste left out
    assert [(e["kind"], e["line"]) for e in json_lines(result.stdout)] == [("error", 7), ("error", 9), ("error", 10)]


def test_several_files_number_lines_per_file() -> None:
    result = run(str(log("01")), str(log("21")))
    lines = [(e["kind"], e["line"]) for e in json_lines(result.stdout)]
    assert lines[:2] == [("prefill", 1), ("decode", 2)] and lines[6:8] == [("decode", 1), ("http_access", 2)]
    assert len(lines) == 14


def test_summary_of_a_file() -> None:
    result = run("--summary", str(log("01")))
    assert result.returncode == 0
    summary = json.loads(result.stdout)
    assert summary["phase"] == "ready" and summary["requests"]["decode"] == 5
    assert abs(summary["steady_gen_throughput"] - 174.635) < 1e-9


def test_summary_of_stdin_and_of_several_files_together() -> None:
    from_stdin = json.loads(run("--summary", stdin=log("09").read_bytes()).stdout)
    assert from_stdin["memory"]["TP1"]["draft_kv_gb"] == 2.16
    both = json.loads(run("--summary", str(log("17")), str(log("09"))).stdout)
    assert set(both["memory"]) == {"TP0", "TP1", "TP4", "TP7"}
    assert both["memory"]["TP0"]["weights_gb"] == 79.54 and both["memory"]["TP0"]["kv_gb"] == 6.92


def test_unreadable_file_is_one_sentence_and_exit_1(tmp_path: Path) -> None:
    for bad in (tmp_path / "missing.log", tmp_path):
        result = run(str(log("01")), str(bad))
        assert result.returncode == 1
        assert result.stdout == b""
        stderr = result.stderr.decode()
        assert stderr.count("\n") == 1 and str(bad) in stderr and stderr.startswith("mtptui: cannot read ")
        assert "Traceback" not in stderr


def test_closed_pipe_is_quiet(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    big.write_bytes(log("04").read_bytes() * 20000)
    proc = subprocess.Popen(f"{sys.executable} -m mtptui.cli.main parse-log {big} | head -n 1", shell=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=60)
    assert json.loads(out)["kind"] == "decode"
    assert err == b""


def test_help_mentions_summary() -> None:
    result = run("--help")
    assert result.returncode == 0 and b"--summary" in result.stdout
