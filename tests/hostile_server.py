"""A hostile stand-in server for the benchmark: a real Starlette app on uvicorn (loopback), in a thread.

Stand-in, not SGLang: it sends on purpose what SGLang never sends but a broken proxy, a wrong server or an
attacker can (the simulated server only speaks correct SGLang). The first path segment picks the behaviour, so
``hostile.url("nested")`` is a base URL whose ``/v1/chat/completions``, ``/v1/models``, ``/server_info`` and
``/metrics`` all answer the ``nested`` way; anything not listed answers like a plain, correct server.

    with serve_hostile() as hostile:
        BenchConfig(url=hostile.url("trickle"), ...)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from typing import Any, AsyncIterator, Iterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

MODEL = "hostile-model"
DEEP = 100_000  # nesting depth: far past the recursion limit of json.loads
# A 20 MB model list made by repetition: encoding 2 million entries per request held the GIL for seconds in
# this thread, and under load the benchmark's client timed out before the answer's size could be judged.
HUGE_MODELS = b'{"object": "list", "data": [' + b'{"id": "m"}, ' * 1_600_000 + b'{"id": "m"}]}'


def _data(obj: Any) -> str:
    return "data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n"


def _chunk(content: str = "tok", tokens: int = 1, **extra: Any) -> dict:
    return {"id": "r1", "object": "chat.completion.chunk", "model": MODEL,
            "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}],
            "usage": {"prompt_tokens": 5, "completion_tokens": tokens, "reasoning_tokens": 0}, **extra}


GOOD = [_chunk("a", 1), _chunk("b", 2), {"id": "r1", "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]},
        {"id": "r1", "choices": [], "sglext": {"spec_tokens_details": {"spec_verify_ct": 1, "spec_accept_length": 2}}},
        {"id": "r1", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2, "reasoning_tokens": 0}}]

# One wrong-typed field per behaviour: (name, the chunk that carries it).
WRONG_TYPES = {
    "choices-text": {"choices": "abc"},
    "choices-number": {"choices": 5},
    "choice-text": {"choices": ["x"]},
    "delta-list": {"choices": [{"index": 0, "delta": ["content"]}]},
    "content-number": {"choices": [{"index": 0, "delta": {"content": 5}}]},
    "tool-calls-number": {"choices": [{"index": 0, "delta": {"tool_calls": 5}}]},
    "tool-function-text": {"choices": [{"index": 0, "delta": {"tool_calls": [{"function": "f"}]}}]},
    "finish-object": {"choices": [{"index": 0, "delta": {}, "finish_reason": {"a": 1}}]},
    "usage-text": _chunk(usage="many"),
    "usage-tokens-text": _chunk(usage={"completion_tokens": "5"}),
    "usage-tokens-bool": _chunk(usage={"completion_tokens": True}),
    "usage-tokens-huge": _chunk(usage={"completion_tokens": 10**18}),
    "usage-tokens-negative": _chunk(usage={"completion_tokens": -3}),
    "sglext-text": {"choices": [], "sglext": "spec"},
    "spec-number": {"choices": [], "sglext": {"spec_tokens_details": 5}},
    "verify-text": {"choices": [], "sglext": {"spec_tokens_details": {"spec_verify_ct": "7"}}},
    "verify-nan": {"choices": [], "sglext": {"spec_tokens_details": {"spec_verify_ct": float("nan")}}},
    "accept-infinite": {"choices": [], "sglext": {"spec_tokens_details": {"spec_accept_length": float("inf")}}},
}


def _nested(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


async def _stream(name: str) -> AsyncIterator[str]:
    if name in WRONG_TYPES:
        yield _data(_chunk("a", 1))
        yield _data(WRONG_TYPES[name])
    elif name == "nested":
        yield _data('{"choices": [{"index": 0, "delta": {"content": ' + _nested() + "}}]}")
    elif name == "not-object":
        yield _data([_chunk()])
    elif name == "big-chunk":
        yield "data: " + "x" * (3 << 20)
    elif name == "trickle":  # a keep-alive every 0.2 s: the silence timeout never fires
        yield _data(_chunk("a", 1))
        while True:
            await asyncio.sleep(0.2)
            yield ": keep-alive\n\n"
    elif name == "endless":  # tokens forever
        for count in range(1, 10**9):
            await asyncio.sleep(0.01)
            yield _data(_chunk("t", count))
    else:
        for chunk in GOOD:
            yield _data(chunk)
    yield "data: [DONE]\n\n"


async def chat(request: Request) -> Response:
    name = request.path_params["behaviour"]
    await request.body()
    if name == "big-error":
        return Response("E" * (50 << 20), status_code=500, media_type="text/plain")
    return StreamingResponse(_stream(name), media_type="text/event-stream")


async def models(request: Request) -> Response:
    name = request.path_params["behaviour"]
    if name.startswith("long-id"):  # long-id: 2 MiB; long-id-N: N characters
        size = int(name.rpartition("-")[2]) if name[-1].isdigit() else 2 << 20
        return JSONResponse({"object": "list", "data": [{"id": "m" * size, "object": "model"}]})
    if name == "huge-models":
        return Response(HUGE_MODELS, media_type="application/json")
    if name == "id-object":
        return JSONResponse({"object": "list", "data": [{"id": {"name": MODEL}}]})
    return JSONResponse({"object": "list", "data": [{"id": MODEL, "object": "model"}]})


async def server_info(request: Request) -> Response:
    name = request.path_params["behaviour"]
    if name == "nested-info":
        return Response('{"version": ' + _nested() + "}", media_type="application/json")
    if name == "odd-info":
        return JSONResponse({"version": {"v": 1}, "tp_size": [[[[1]]]], "model_path": "p" * 100_000,
                             "launch_command": "c" * (1 << 20)})
    return JSONResponse({"version": "0.5.12.post1", "tp_size": 1, "model_path": "/models/hostile",
                         "speculative_algorithm": "EAGLE"})


async def metrics(request: Request) -> Response:
    return Response("not found", status_code=404)


def app() -> Starlette:
    return Starlette(routes=[
        Route("/{behaviour}/v1/chat/completions", chat, methods=["POST"]),
        Route("/{behaviour}/v1/models", models),
        Route("/{behaviour}/server_info", server_info),
        Route("/{behaviour}/metrics", metrics),
    ])


class Hostile:
    """The running stand-in; ``url(behaviour)`` is a base URL for the bench."""

    def __init__(self, port: int) -> None:
        self.port = port

    def url(self, behaviour: str) -> str:
        return f"http://127.0.0.1:{self.port}/{behaviour}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve_hostile() -> Iterator[Hostile]:
    """uvicorn in a daemon thread on a free loopback port, stopped on exit (endless streams are cut)."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app(), host="127.0.0.1", port=port, log_level="critical", lifespan="off",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, name="hostile-server", daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the hostile stand-in server did not start")
            time.sleep(0.02)
        yield Hostile(port)
    finally:
        server.should_exit = True
        thread.join(10)
