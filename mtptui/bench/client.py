"""Async streaming client for SGLang's OpenAI-compatible `/v1/chat/completions`, on httpx and httpx-sse.

The reading task only timestamps (`time.perf_counter()`), parses and books each event; whatever consumes the
results runs elsewhere, so a slow consumer never delays the timestamps. Every failure of a request (HTTP
status, error chunk in a 200 stream, reset, timeout, unreachable server) ends up in `StreamRecord.error`.
"""

from __future__ import annotations

import json
from time import perf_counter
from typing import Any, Callable

import httpx
from httpx_sse import SSEError, aconnect_sse

from mtptui.bench.chunks import Chunk, StreamRecord, apply_event, error_message
from mtptui.bench.payload import CHAT_PATH


def describe_http_error(exc: httpx.HTTPError, timeout: float | None) -> str:
    """One short reason for a transport failure."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectTimeout):
        return "timed out connecting to the server"
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect to the server ({detail})"
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out: no data for {timeout:g} s" if timeout else "timed out"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
        return f"connection lost mid-stream ({detail})"
    return f"{type(exc).__name__}: {detail}"


async def _status_error(response: httpx.Response) -> str:
    body = (await response.aread()).decode("utf-8", "replace")
    try:
        message = error_message(json.loads(body)) or json.loads(body).get("detail")
    except (ValueError, AttributeError):
        message = body.strip()[:200]
    return f"HTTP {response.status_code}: {message or response.reason_phrase}"


class ChatClient:
    """One httpx connection pool sized for the run's concurrency; use as `async with`."""

    def __init__(self, base_url: str, *, concurrency: int = 1, timeout: float | None = 300.0,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        slots = max(1, concurrency) + 4
        self._http = httpx.AsyncClient(
            base_url=self.base_url, transport=transport, trust_env=False,
            timeout=httpx.Timeout(timeout, connect=10.0),
            limits=httpx.Limits(max_connections=slots, max_keepalive_connections=slots))

    async def __aenter__(self) -> "ChatClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    async def get_json(self, path: str) -> tuple[int, Any]:
        """GET `path`: (status, parsed JSON or text). Transport errors propagate as httpx.HTTPError."""
        response = await self._http.get(path, timeout=httpx.Timeout(30.0, connect=10.0))
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, response.text

    async def stream(self, payload: dict[str, Any], on_chunk: Callable[[Chunk], None] | None = None) -> StreamRecord:
        """Send one streamed chat request and record its timeline; never raises for a failed request."""
        record = StreamRecord(start=perf_counter())
        try:
            await self._read(record, payload, on_chunk)
        except SSEError:
            content_type = record.content_type or "none"
            record.error = record.error or f"not an event stream (content-type {content_type!r})"
        except httpx.HTTPError as exc:
            record.error = record.error or describe_http_error(exc, self.timeout)
        if record.error is None and not record.done:
            record.error = "stream ended before [DONE]"
        return record

    async def _read(self, record: StreamRecord, payload: dict[str, Any],
                    on_chunk: Callable[[Chunk], None] | None) -> None:
        async with aconnect_sse(self._http, "POST", CHAT_PATH, json=payload) as source:
            record.status = source.response.status_code
            record.content_type = source.response.headers.get("content-type")
            if record.status >= 400:
                record.error = await _status_error(source.response)
                return
            async for event in source.aiter_sse():
                t = perf_counter()
                if event.event not in ("", "message"):
                    continue
                chunk = apply_event(record, event.data, t)
                if chunk is not None and on_chunk is not None and record.error is None:
                    on_chunk(chunk)
