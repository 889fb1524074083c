"""Async streaming client for SGLang's OpenAI-compatible `/v1/chat/completions`, on httpx.

The reading task only timestamps (`time.perf_counter()`), parses and books each event; whatever consumes the
results runs elsewhere, so a slow consumer never delays the timestamps. Every failure of a request (HTTP
status, error chunk in a 200 stream, malformed or oversize chunk, reset, silence, deadline, unreachable server)
ends up in `StreamRecord.error`; what a server sends is read within bounds (mtptui.bench.sse, JSON_LIMIT).
"""

from __future__ import annotations

import asyncio
import json
import ssl
from time import perf_counter
from typing import Any, Callable

import httpx

from mtptui.bench.chunks import Chunk, StreamRecord, apply_event, error_message
from mtptui.bench.payload import CHAT_PATH
from mtptui.bench.sse import EventParser, EventTooLarge

SSE_HEADERS = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
JSON_LIMIT = 8 << 20  # /server_info, /v1/models, /metrics: tens of KB on a real server
ERROR_BODY_LIMIT = 64 << 10

MODELS_PATH = "/v1/models"


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


async def _read_at_most(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    """The body's first ``limit`` bytes or so, and whether that is the whole body (no more is read)."""
    body = bytearray()
    async for piece in response.aiter_bytes():
        body += piece
        if len(body) > limit:
            return bytes(body[:limit]), False
    return bytes(body), True


async def _status_error(response: httpx.Response) -> str:
    body, _ = await _read_at_most(response, ERROR_BODY_LIMIT)
    text = body.decode("utf-8", "replace")
    try:
        message = error_message(json.loads(text)) or json.loads(text).get("detail")
    except (ValueError, AttributeError, RecursionError):
        message = text.strip()
    return f"HTTP {response.status_code}: {str(message or response.reason_phrase)[:200]}"


class ResponseTooLarge(Exception):
    """An answer to a GET (server info, models, metrics) over JSON_LIMIT: not read."""


class ChatClient:
    """Streams chat requests, each on a lane of its own; use as `async with`.

    A lane is an httpx client holding one keep-alive connection, taken by one request at a time: as many lanes
    as requests in flight, never two streams on one connection. (One shared pool of 64 connections made
    httpcore's pool bookkeeping, which scans every connection on every request, the client's main CPU cost.)
    ``open_lanes(n)`` connects n lanes ahead of time, so a measured window does not pay connection setup.
    Probes and /metrics scrapes use a separate control client.
    """

    def __init__(self, base_url: str, *, concurrency: int = 1, timeout: float | None = 300.0,
                 deadline: float | None = None, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout, self.deadline = timeout, deadline
        self._transport = transport
        self._ssl = ssl.create_default_context()  # built once: loading CA certificates costs ~20 ms a client
        self._idle: list[httpx.AsyncClient] = []
        self._lanes: list[httpx.AsyncClient] = []
        self._control = self._client(httpx.Timeout(30.0, connect=10.0), connections=2)

    def _client(self, timeout: httpx.Timeout, connections: int = 1) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base_url, transport=self._transport, trust_env=False, verify=self._ssl,
                                 timeout=timeout, limits=httpx.Limits(max_connections=connections,
                                                                      max_keepalive_connections=connections))

    def _take_lane(self) -> httpx.AsyncClient:
        if self._idle:
            return self._idle.pop()
        lane = self._client(httpx.Timeout(self.timeout, connect=10.0))
        self._lanes.append(lane)
        return lane

    async def open_lanes(self, count: int) -> None:
        """Have ``count`` idle lanes with an open connection: new lanes connect with a cheap GET (/v1/models)."""
        new = [self._client(httpx.Timeout(self.timeout, connect=10.0)) for _ in range(count - len(self._idle))]
        self._lanes += new
        await asyncio.gather(*(self._connect(lane) for lane in new))
        self._idle += new

    @staticmethod
    async def _connect(lane: httpx.AsyncClient) -> None:
        try:
            await lane.get(MODELS_PATH)
        except httpx.HTTPError:
            pass  # the measured request on this lane will say what is wrong

    async def __aenter__(self) -> "ChatClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        for client in [self._control, *self._lanes]:
            await client.aclose()

    async def get_json(self, path: str) -> tuple[int, Any]:
        """GET `path`: (status, parsed JSON or text). Transport errors propagate as httpx.HTTPError.

        An answer over JSON_LIMIT raises ResponseTooLarge; JSON too deeply nested to read is returned as text.
        """
        async with self._control.stream("GET", path) as response:
            body, whole = await _read_at_most(response, JSON_LIMIT)
        if not whole:
            raise ResponseTooLarge(f"the server's {path} answer is over {JSON_LIMIT >> 20} MiB: not read")
        text = body.decode(response.encoding or "utf-8", "replace")
        try:
            return response.status_code, json.loads(text)
        except (ValueError, RecursionError):
            return response.status_code, text

    async def stream(self, payload: dict[str, Any], on_chunk: Callable[[Chunk], None] | None = None) -> StreamRecord:
        """Send one streamed chat request and record its timeline; never raises for a failed request.

        The request fails when the server is silent for ``timeout`` s, or has not finished after ``deadline`` s.
        """
        lane = self._take_lane()
        record = StreamRecord(start=perf_counter())
        try:
            async with asyncio.timeout(self.deadline):
                await self._read(lane, record, payload, on_chunk)
        except TimeoutError:
            if not record.done:  # after [DONE] only the server's closing of the stream was late
                record.error = record.error or f"no [DONE] within the {self.deadline:g} s deadline"
        except EventTooLarge as exc:
            record.error = record.error or f"malformed stream: {exc}"
        except httpx.HTTPError as exc:
            record.error = record.error or describe_http_error(exc, self.timeout)
        except Exception as exc:  # noqa: BLE001 - whatever a server sends fails one request, never the run
            record.error = record.error or f"unreadable server output ({type(exc).__name__})"
        finally:
            self._idle.append(lane)
        if record.error is None and not record.done:
            record.error = "stream ended before [DONE]"
        return record

    async def _read(self, lane: httpx.AsyncClient, record: StreamRecord, payload: dict[str, Any],
                    on_chunk: Callable[[Chunk], None] | None) -> None:
        async with lane.stream("POST", CHAT_PATH, json=payload, headers=SSE_HEADERS) as response:
            record.status = response.status_code
            record.content_type = response.headers.get("content-type")
            if record.status >= 400:
                record.error = await _status_error(response)
                return
            if "text/event-stream" not in (record.content_type or "").partition(";")[0]:
                record.error = f"not an event stream (content-type {record.content_type or 'none'!r})"
                return
            await self._events(response, record, on_chunk)

    async def _events(self, response: httpx.Response, record: StreamRecord,
                      on_chunk: Callable[[Chunk], None] | None) -> None:
        """Book every event until the stream ends or the first error (the rest of a broken stream is not read)."""
        parser = EventParser()
        async for text in response.aiter_text():
            t = perf_counter()
            for event in parser.feed(text):
                record.events += 1
                if event.event not in ("", "message"):
                    continue
                chunk = apply_event(record, event.data, t)
                if record.error is not None:
                    return
                if chunk is not None and on_chunk is not None:
                    on_chunk(chunk)
