"""Malformed and failing streams the simulated server cannot produce, through the real httpx client.

The app here is a stand-in: a few lines of raw ASGI served in-process with httpx.ASGITransport (which buffers
the body, so timings are meaningless). Everything a real server can do is tested against `mtptui sim`.
"""

from __future__ import annotations

import json

import httpx

from mtptui.bench.client import ChatClient
from mtptui.bench.metrics import request_metrics


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
