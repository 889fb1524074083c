"""Malformed and failing streams the simulated server cannot produce, through the real httpx client.

The app here is a stand-in: a few lines of raw ASGI served in-process with httpx.ASGITransport (which buffers
the body, so timings are meaningless). Everything a real server can do is tested against `mtptui sim`.
"""

from __future__ import annotations

import json

import httpx

from mtptui.bench.client import ChatClient
from mtptui.bench.events import Notice, RequestDone
from mtptui.bench.load import LoadPlan
from mtptui.bench.metrics import request_metrics
from mtptui.bench.prompts import load_prompt_set
from mtptui.bench.runner import BenchConfig, BenchRunner


def stand_in(status: int, body: bytes, content_type: bytes = b"text/event-stream"):
    """A raw ASGI app answering every request with one fixed response."""
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", content_type)]})
        await send({"type": "http.response.body", "body": body})
    return app


async def measure(app) -> tuple:
    async with ChatClient("http://stand-in", transport=httpx.ASGITransport(app=app)) as client:
        record = await client.stream({"model": "m", "messages": [], "stream": True})
    return record, request_metrics(record)


def sse(*objects) -> bytes:
    return b"".join(b"data: " + (o if isinstance(o, bytes) else json.dumps(o).encode()) + b"\n\n" for o in objects)


CHUNK = {"choices": [{"index": 0, "delta": {"content": "hi"}}], "usage": {"completion_tokens": 1}}


async def test_error_chunk_after_tokens_in_a_200_stream() -> None:
    body = sse(CHUNK, {"error": {"message": "out of KV cache", "code": 503}}, b"[DONE]")
    record, m = await measure(stand_in(200, body))
    assert record.status == 200 and not m.ok and m.error == "server error in stream: out of KV cache"


async def test_value_error_line_then_done() -> None:
    record, m = await measure(stand_in(200, sse({"object": "error", "message": "bad tool schema"}, b"[DONE]")))
    assert not m.ok and "bad tool schema" in m.error


async def test_stream_that_stops_without_done() -> None:
    record, m = await measure(stand_in(200, sse(CHUNK)))
    assert not m.ok and m.error == "stream ended before [DONE]" and m.output_tokens == 1


async def test_json_instead_of_an_event_stream() -> None:
    record, m = await measure(stand_in(200, b'{"choices": []}', b"application/json"))
    assert not m.ok and m.error == "not an event stream (content-type 'application/json')"


async def test_http_error_status_with_openai_error_body() -> None:
    body = json.dumps({"object": "error", "message": "model 'x' not found", "type": "NotFoundError"}).encode()
    record, m = await measure(stand_in(404, body, b"application/json"))
    assert not m.ok and m.error == "HTTP 404: model 'x' not found"


async def test_http_error_status_with_plain_text_body() -> None:
    record, m = await measure(stand_in(502, b"Bad Gateway from proxy", b"text/plain"))
    assert not m.ok and m.error == "HTTP 502: Bad Gateway from proxy"


def old_server(final_usage: bool):
    """A stand-in for an older SGLang build: no per-chunk usage, no sglext, /metrics off (404)."""
    chunks = [{"id": "r", "choices": [{"index": 0, "delta": {"content": w}}]} for w in ("a", "bc", "d")]
    tail = [{"id": "r", "choices": [], "usage": {"completion_tokens": 6, "reasoning_tokens": 0}}] if final_usage else []
    routes = {
        "/server_info": (200, json.dumps({"version": "0.4.6", "speculative_algorithm": "EAGLE"}).encode(),
                         b"application/json"),
        "/v1/models": (200, json.dumps({"data": [{"id": "old-model"}]}).encode(), b"application/json"),
        "/v1/chat/completions": (200, sse(*chunks, *tail, b"[DONE]"), b"text/event-stream"),
    }

    async def app(scope, receive, send):
        status, body, kind = routes.get(scope["path"], (404, b"Not Found", b"text/plain"))
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", kind)]})
        await send({"type": "http.response.body", "body": body})
    return app


async def run_against(app, requests: int = 2):
    config = BenchConfig(url="http://stand-in", prompts=load_prompt_set("chat"), max_tokens=8,
                         plan=LoadPlan(requests=requests, warmup=1))
    events = [e async for e in BenchRunner(config, transport=httpx.ASGITransport(app=app)).events()]
    return [e.message for e in events if isinstance(e, Notice)], events[-1].result, events


async def test_final_usage_only_gives_exact_totals_and_a_per_chunk_itl_warning() -> None:
    notices, result, events = await run_against(old_server(final_usage=True))
    assert result.summary["output_tokens"] == 12 and not result.summary["usage_approximate"]
    assert result.requests[0].metrics.itl_per_chunk and len(result.requests[0].metrics.itl) == 2
    assert notices[0].startswith("the server sent usage only at the end") and len(notices) == 2
    assert notices[1] == ("no accept length: no request reported its acceptance (sglext); /metrics is off "
                          "(--enable-metrics); no server log was followed (bench a host instead of --url)")
    assert result.summary["accept_len"] is None and result.fingerprint["server_version"] == "0.4.6"
    assert result.fingerprint["model"] == "old-model" and result.warnings == notices


async def test_no_usage_at_all_counts_chunks_and_says_so() -> None:
    notices, result, events = await run_against(old_server(final_usage=False))
    assert result.summary["output_tokens"] == 6 and result.summary["usage_approximate"]
    assert notices[0] == "the server sent no usage: token counts are approximate (one token per chunk counted)"
    first_notice = next(i for i, e in enumerate(events) if isinstance(e, Notice))
    measured = [i for i, e in enumerate(events) if isinstance(e, RequestDone) and not e.warmup]
    assert first_notice < min(measured)  # warned after the warm-up, before the measured requests
