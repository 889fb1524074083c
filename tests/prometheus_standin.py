"""A stand-in Prometheus HTTP API (Starlette on uvicorn, loopback, in a thread), for what the real Prometheus of
tests/prometheus.py cannot be made to do here: answer for 10,000 instances, or answer wrong on purpose.

Stand-in, not Prometheus: it evaluates no PromQL. ``/fleet-N/api/v1/...`` answers like a Prometheus scraping N
healthy SGLang instances: the target list, every instant query a vector with one series per instance (the
families query as SGLang 0.5.23's families), every range query a matrix with a point per step. Any other first
path segment names a misbehaviour (``BEHAVIOURS``): a wrong shape, JSON nested past any parser's limit, a body
that never ends or trickles. The real Prometheus tests hold the correct answers' format to the real thing.

    with serve_prometheus() as prom:
        settings = FleetSettings(url=prom.url("fleet-10000"), ...)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, AsyncIterator, Iterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

DEEP = 100_000
FAMILIES = ("sglang:max_total_num_tokens", "sglang:spec_verify_calls_total", "sglang:prompt_tokens_total")


def instance(i: int) -> dict[str, str]:
    return {"instance": f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}:30000", "job": "sglang"}


def _ok(data: Any) -> bytes:
    return json.dumps({"status": "success", "data": data}, separators=(",", ":")).encode()


@lru_cache(maxsize=8)
def targets(count: int) -> bytes:
    now = datetime.now(timezone.utc).isoformat()
    return _ok({"activeTargets": [{"labels": instance(i), "scrapePool": "sglang", "scrapeUrl": "http://x/metrics",
                                   "health": "up", "lastError": "", "lastScrape": now, "scrapeInterval": "5s"}
                                  for i in range(count)]})


@lru_cache(maxsize=16)
def vector(count: int, families: bool) -> bytes:
    at = time.time()
    if families:
        series = [{"metric": {"__name__": name, **instance(i)}, "value": [at, "1"]}
                  for i in range(count) for name in FAMILIES]
    else:
        series = [{"metric": instance(i), "value": [at, f"{40 + i % 7}.5"]} for i in range(count)]
    return _ok({"resultType": "vector", "result": series})


@lru_cache(maxsize=16)
def matrix(count: int, points: int, start: float, step: float) -> bytes:  # start: the first request's
    values = [[round(start + k * step, 3), f"{40 + k % 5}.25"] for k in range(points)]
    return _ok({"resultType": "matrix", "result": [{"metric": instance(i), "values": values} for i in range(count)]})


_first_start: dict[tuple[int, float], float] = {}  # one rendering per range: later refreshes get the same body


def fleet(count: int, path: str, params: Any) -> bytes:
    if path.endswith("/targets"):
        return targets(count)
    if path.endswith("/query_range"):
        start, end, step = float(params["start"]), float(params["end"]), float(params["step"])
        return matrix(count, int((end - start) / step) + 1, _first_start.setdefault((count, step), start), step)
    query = params.get("query", "")
    # a history figure (only the instances below their past), or the instances seen only long ago: 1 in 100
    if "and on (instance, job)" in query or "unless on (instance, job)" in query:
        return vector(count // 100, False)
    return vector(count, "max_total_num_tokens" in query and "group" not in query)


def _vector_of(result: Any) -> bytes:
    return json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode()


BEHAVIOURS: dict[str, bytes] = {
    "top-list": b"[1, 2, 3]",
    "data-list": b'{"status": "success", "data": [1, 2]}',
    "data-text": b'{"status": "success", "data": "x"}',
    "targets-text": b'{"status": "success", "data": {"activeTargets": "all of them"}}',
    "target-text": b'{"status": "success", "data": {"activeTargets": ["t1", "t2"]}}',
    "target-labels-list": b'{"status": "success", "data": {"activeTargets": [{"labels": ["instance"]}]}}',
    "result-dict": json.dumps({"status": "success", "data": {"resultType": "vector", "result": {"a": 1}}}).encode(),
    "series-text": _vector_of(["series"]),
    "metric-list": _vector_of([{"metric": ["instance"], "value": [1, "2"]}]),
    "value-short": _vector_of([{"metric": {"instance": "a"}, "value": [1]}]),
    "value-number": _vector_of([{"metric": {"instance": "a"}, "value": 5}]),
    "matrix-points-text": json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"instance": "a"}, "values": ["p1", "p2"]}]}}).encode(),
    "matrix-time-text": json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"instance": "a"}, "values": [["noon", "1"]]}]}}).encode(),
    "deep": b'{"status": "success", "data": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    "not-utf8": b'{"status": "success", "data": {"resultType": "vector", "result": [\xff\xfe]}}',
}
STREAMS = ("huge", "trickle")


async def _huge() -> AsyncIterator[bytes]:
    """A valid beginning, then 400 MB of one label value."""
    yield b'{"status": "success", "data": {"activeTargets": [{"labels": {"instance": "'
    chunk = b"x" * 1048576
    for _ in range(400):
        yield chunk
    yield b'"}}]}}'


async def _trickle() -> AsyncIterator[bytes]:
    """A byte every half second, for ever (each read is quick: only a deadline for the whole answer ends it)."""
    for byte in json.dumps({"status": "success", "data": {"activeTargets": []}}).encode() * 1000:
        yield bytes([byte])
        await asyncio.sleep(0.5)


async def answer(request: Request) -> Response:
    behaviour = request.path_params["behaviour"]
    if behaviour.startswith("fleet-"):
        body = await asyncio.to_thread(fleet, int(behaviour[6:]), request.url.path, request.query_params)
        return Response(body, media_type="application/json")
    if behaviour in STREAMS:
        return StreamingResponse(_huge() if behaviour == "huge" else _trickle(), media_type="application/json")
    return Response(BEHAVIOURS[behaviour], media_type="application/json")


class StandIn:
    def __init__(self, port: int) -> None:
        self.port = port

    def url(self, behaviour: str, credentials: str = "") -> str:
        return f"http://{credentials}{'@' * bool(credentials)}127.0.0.1:{self.port}/{behaviour}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve_prometheus() -> Iterator[StandIn]:
    """uvicorn in a daemon thread on a free loopback port, stopped on exit."""
    import uvicorn

    app = Starlette(routes=[Route("/{behaviour}/api/v1/{call:path}", answer)])
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical", lifespan="off",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, name="prometheus-standin", daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the stand-in Prometheus did not start")
            time.sleep(0.02)
        yield StandIn(port)
    finally:
        server.should_exit = True
        thread.join(10)


if __name__ == "__main__":  # for the benchmark: serve until killed, print the port
    import sys

    with serve_prometheus() as standin:
        print(standin.port, flush=True)
        sys.stdin.read()
