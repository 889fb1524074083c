"""The benchmark against a hostile server: whatever it sends is a failed request (or a notice), never a traceback,
never a run without end, and nothing it sends is stored in full.

The server is a real Starlette app on uvicorn (tests/hostile_server.py, a stand-in). Runs that used to hang
are wrapped in a 60 s guard so that the unfixed code fails instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.bench.events import Notice, RequestDone, RunFinished
from mtptui.bench.load import LoadPlan
from mtptui.bench.prompts import load_prompt_set
from mtptui.bench.patience import default_deadline
from mtptui.bench.runner import BenchConfig, BenchRunner
from tests.hostile_server import WRONG_TYPES, serve_hostile

GUARD_S = 60


@pytest.fixture(scope="module")
def hostile():
    with serve_hostile() as server:
        yield server


async def run(url: str, *, requests: int = 2, deadline: float | None = None, timeout: float = 5.0):
    config = BenchConfig(url=url, prompts=load_prompt_set("chat"), max_tokens=8, timeout=timeout, deadline=deadline,
                         plan=LoadPlan(requests=requests, warmup=1))

    async def collect():
        return [event async for event in BenchRunner(config).events()]

    events = await asyncio.wait_for(collect(), GUARD_S)
    assert isinstance(events[-1], RunFinished)
    done = [e for e in events if isinstance(e, RequestDone)]
    notices = [e.message for e in events if isinstance(e, Notice)]
    return events[-1].result, done, notices


def errors(done: list[RequestDone]) -> set[str]:
    return {e.metrics.error for e in done}


async def test_the_stand_in_answers_correctly_where_not_hostile(hostile) -> None:
    result, done, notices = await run(hostile.url("plain"))
    assert all(e.metrics.ok for e in done) and result.summary["output_tokens"] == 4
    assert result.summary["accept_len"] == 2 and result.fingerprint["model"] == "hostile-model"


@pytest.mark.parametrize("behaviour", sorted(WRONG_TYPES))
async def test_a_wrong_type_in_any_field_fails_the_request_and_the_run_goes_on(hostile, behaviour: str) -> None:
    result, done, notices = await run(hostile.url(behaviour))
    assert len(done) == 3 and not any(e.metrics.ok for e in done)  # the warm-up too
    (error,) = errors(done)
    assert error.startswith("malformed chunk: ") and result.summary["requests_failed"] == 2


@pytest.mark.parametrize("behaviour, error", [
    ("usage-tokens-text", "malformed chunk: usage.completion_tokens is a string, not a count of tokens"),
    ("usage-tokens-huge", "malformed chunk: usage.completion_tokens is 1000000000000000000, not a count of tokens"),
    ("delta-list", "malformed chunk: choices[0].delta is a list, not an object"),
    ("verify-nan", "malformed chunk: sglext.spec_tokens_details.spec_verify_ct is nan, not a finite number"),
    ("nested", "malformed chunk: nested too deeply to read"),
    ("not-object", "malformed chunk: a list, not an object"),
    ("big-chunk", "malformed stream: an event over 1 MiB"),
])
async def test_what_a_malformed_chunk_says(hostile, behaviour: str, error: str) -> None:
    result, done, notices = await run(hostile.url(behaviour), requests=1)
    assert errors(done) == {error}


@pytest.mark.parametrize("behaviour", ["trickle", "endless"])
async def test_a_stream_without_end_ends_at_the_deadline(hostile, behaviour: str) -> None:
    result, done, notices = await run(hostile.url(behaviour), requests=1, deadline=1.5, timeout=1.0)
    assert errors(done) == {"no [DONE] within the 1.5 s deadline"}
    assert result.summary["requests_failed"] == 1


async def test_an_error_body_of_50_mb_is_one_short_sentence(hostile) -> None:
    result, done, notices = await run(hostile.url("big-error"), requests=1)
    (error,) = errors(done)
    assert error.startswith("HTTP 500: EEEE") and len(error) < 300


async def test_a_model_id_of_2_mb_is_capped_and_said(hostile) -> None:
    result, done, notices = await run(hostile.url("long-id"), requests=1)
    assert all(e.metrics.ok for e in done)
    assert result.fingerprint["model"] == "m" * 64 + " … (2,097,152 characters)"
    assert "the server's model id is 2,097,152 characters long: recorded as its first 64" in notices[0]
    assert len(json.dumps(result.to_json())) < 64 * 1024


async def test_a_20_mb_model_list_is_set_aside(hostile) -> None:
    result, done, notices = await run(hostile.url("huge-models"), requests=1)
    assert all(e.metrics.ok for e in done) and result.fingerprint["model"] == "/models/hostile"
    assert "the server's /v1/models answer is over 8 MiB: not read" in notices


async def test_a_nested_or_odd_server_info_is_read_within_bounds(hostile) -> None:
    result, done, notices = await run(hostile.url("nested-info"), requests=1)
    assert all(e.metrics.ok for e in done) and result.fingerprint["server_version"] is None
    result, done, notices = await run(hostile.url("odd-info"), requests=1)
    fingerprint = result.fingerprint
    assert fingerprint["server_version"] is None and fingerprint["launch_flags"]["tp_size"] == "(a list)"
    assert fingerprint["launch_flags"]["model_path"] == "p" * 1024 + " … (100,000 characters)"
    assert len(fingerprint["launch_command"]) < 20_000


def bench_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", *args], capture_output=True,
                          text=True, timeout=GUARD_S, env={**os.environ})


def test_cli_malformed_warm_up_is_a_failed_request_not_a_traceback(hostile) -> None:
    result = bench_cli("--url", hostile.url("delta-list"), "--requests", "1", "--no-history")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert "1 of 1 requests failed (most common, 1x: malformed chunk: choices[0].delta is a list" in result.stdout


def test_cli_long_model_id_is_not_stored_in_history(hostile, isolated_dirs: Path) -> None:
    for _ in range(2):
        result = bench_cli("--url", hostile.url("long-id"), "--requests", "1", "--max-tokens", "8")
        assert result.returncode == 0, result.stderr[-3000:]
    history = isolated_dirs / "xdg_data_home" / "mtptui" / "bench-history.jsonl"
    lines = history.read_text().splitlines()
    assert len(lines) == 2 and max(map(len, lines)) < 64 * 1024
    assert "compare: " in result.stdout and "model id is 2,097,152 characters long" in result.stderr


def test_cli_deadline_option(hostile) -> None:
    result = bench_cli("--url", hostile.url("trickle"), "--requests", "1", "--no-history", "--deadline", "1",
                       "--warmup", "0")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "no [DONE] within the 1 s deadline" in result.stderr
    bad = bench_cli("--url", hostile.url("trickle"), "--deadline", "0")
    assert bad.returncode == 1 and bad.stderr == "mtptui: --deadline must be positive\n"


def test_the_default_deadline_grows_with_max_tokens_and_the_bench_screen_uses_it() -> None:
    from mtptui.ops.bench_run import BenchRequest, bench_config

    assert default_deadline(512) == 120 + 512 * 0.25 and default_deadline(4096) > default_deadline(512)
    assert bench_config(BenchRequest("chat", 1, 2, 4096)).deadline == default_deadline(4096)


def test_the_cli_and_the_bench_screen_build_one_config_from_one_workload() -> None:
    """Same prompts, plan, tokens: the same silence timeout and deadline, whichever asks (they once differed)."""
    from mtptui.bench.patience import SILENCE_S
    from mtptui.cli.commands.bench import _config
    from mtptui.cli.main import build_parser
    from mtptui.ops.bench_run import BenchRequest, bench_config

    args = build_parser().parse_args(["bench", "--url", "http://127.0.0.1:1", "--prompts", "chat", "--requests", "4",
                                      "--concurrency", "2", "--max-tokens", "4096"])
    cli, screen = _config(args), bench_config(BenchRequest("chat", concurrency=2, requests=4, max_tokens=4096))
    assert cli.timeout == screen.timeout == SILENCE_S
    assert cli.deadline == screen.deadline == default_deadline(4096)
    assert cli.prompts == screen.prompts and cli.max_tokens == screen.max_tokens == 4096
    assert (cli.plan.requests, cli.plan.concurrency) == (screen.plan.requests, screen.plan.concurrency) == (4, 2)


def test_history_skips_an_oversize_line_without_parsing_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mtptui.bench import history

    good = {"fingerprint": {"target": "t", "model": "m"}, "summary": {"output_tok_s": 1.0}}
    path = tmp_path / "history.jsonl"
    with path.open("w") as handle:
        handle.write(json.dumps({**good, "fingerprint": {"model": "m" * (history.MAX_ENTRY_BYTES + 10)}}) + "\n")
        handle.write(json.dumps(good) + "\n")
    parsed: list[int] = []
    real = json.loads
    monkeypatch.setattr(history.json, "loads", lambda text, *a, **k: parsed.append(len(text)) or real(text, *a, **k))
    runs = history.load_runs(path)
    assert [run["fingerprint"] for run in runs] == [good["fingerprint"]] and max(parsed) < 1000


def test_history_stores_a_huge_run_without_its_per_request_details(tmp_path: Path) -> None:
    from mtptui.bench import history

    run = {"fingerprint": {"target": "t"}, "summary": {"requests_ok": 1},
           "requests": [{"index": i, "error": "x" * 100} for i in range(100_000)], "timeline": []}
    stored = history.append_run(run, tmp_path / "history.jsonl")
    line = (tmp_path / "history.jsonl").read_bytes()
    assert len(line) < 4096 and stored["requests"] == [] and stored["summary"] == {"requests_ok": 1}
    assert stored["trimmed"].startswith("per-request results and timeline not stored: the record was 1")
