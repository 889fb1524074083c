"""The simulated vLLM's HTTP API: a Starlette app with vLLM 0.32.0's routes, the ones mtptui uses served for real.

Served: `/health` (503 once the engine core is dead), `/ping` (GET and POST), `/version`, `/v1/models`, `/load`,
`/tokenize`, `/metrics`, `/v1/completions`, `/v1/chat/completions`. The rest of the route list the server logs
(`/docs`, `/v1/responses`, ...) answers 501 with a sentence saying the simulator does not play it. Two routes
are the simulator's own, never vLLM's: `GET /sim/requests` (the server-side truth of every request, as the
SGLang simulator's) and `POST /sim/engine-death` (the engine core dies now, as a worker's CUDA error kills it).
"""

from __future__ import annotations

import random
import time
from typing import Any, Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from mtptui.engines.vllm.sim import chat, oai
from mtptui.engines.vllm.sim.messages import VERSION
from mtptui.engines.vllm.sim.routes import ROUTES
from mtptui.engines.vllm.sim.runtime import VllmRuntime
from mtptui.engines.vllm.sim.validation import Refused, json_body
from mtptui.sim.textgen import text_pieces

SSE = "text/event-stream; charset=utf-8"
TRUTH_NOTE = "mtptui sim only, not part of vLLM: server-side truth per request; times are time.monotonic() seconds"
DEAD = Refused("EngineCore encountered an issue. See stack trace (above) for the root cause.",
               "InternalServerError", 500)
Handler = Callable[[HttpRequest], Awaitable[Response]]


def _error(refused: Refused) -> JSONResponse:
    return JSONResponse(refused.body(), status_code=refused.code)


def token_ids(text: str, vocab: int = 151_643) -> list[int]:
    """Stand-in token ids: each piece of the simulator's tokenisation hashed into the vocabulary."""
    return [random.Random(piece).randrange(3, vocab) for piece in text_pieces(text)]


class VllmApi:
    """The route handlers of one runtime."""

    def __init__(self, rt: VllmRuntime, on_death: Callable[[], None]) -> None:
        self.rt, self.on_death = rt, on_death

    async def health(self, request: HttpRequest) -> Response:
        return Response(status_code=503 if self.rt.dead else 200)

    async def version(self, request: HttpRequest) -> Response:
        return JSONResponse({"version": VERSION})

    async def models(self, request: HttpRequest) -> Response:
        s, created = self.rt.boot.settings, int(time.time())
        permission = f"modelperm-{random.Random(created).getrandbits(64):016x}"
        return JSONResponse({"object": "list", "data": [oai.model_card(s.served_model_name, s.max_model_len, created,
                                                                       permission)]})

    async def load(self, request: HttpRequest) -> Response:
        return JSONResponse({"server_load": self.rt.load})

    async def metrics(self, request: HttpRequest) -> Response:
        body = self.rt.metrics.render() if self.rt.metrics is not None else b""
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    async def tokenize(self, request: HttpRequest) -> Response:
        try:
            body = await json_body(request)
            if "messages" in body:
                ask = chat.parse({**body, "stream": False}, self.rt, chat=True)
                count = ask.prompts[0][1]
                ids = token_ids(" ".join(str(m.get("content", "")) for m in body["messages"]))
                ids = (ids + [1] * count)[:count]
            else:
                ids = token_ids(str(body.get("prompt") or ""))
        except Refused as refused:
            return _error(refused)
        return JSONResponse({"count": len(ids), "max_model_len": self.rt.boot.settings.max_model_len, "tokens": ids,
                             "token_strs": None})

    async def generate(self, request: HttpRequest, is_chat: bool) -> Response:
        rt = self.rt
        try:
            ask = chat.parse(await json_body(request), rt, is_chat)
            if rt.dead:
                raise DEAD
            requests = chat.start(ask, rt)
        except Refused as refused:
            return _error(refused)
        rid = rt.request_id("chatcmpl" if is_chat else "cmpl")
        if ask.stream:
            return StreamingResponse(self._tracked(chat.stream(ask, requests, rt, rid)), media_type=SSE)
        rt.load += rt.boot.settings.load_tracking
        try:
            return JSONResponse(await chat.complete(ask, requests, rt, rid))
        finally:
            rt.load -= rt.boot.settings.load_tracking

    async def _tracked(self, chunks: Any) -> Any:
        self.rt.load += self.rt.boot.settings.load_tracking
        try:
            async for text in chunks:
                yield text
        finally:
            self.rt.load -= self.rt.boot.settings.load_tracking

    async def chat_completions(self, request: HttpRequest) -> Response:
        return await self.generate(request, True)

    async def completions(self, request: HttpRequest) -> Response:
        return await self.generate(request, False)

    async def sim_requests(self, request: HttpRequest) -> Response:
        itl = request.query_params.get("itl") == "1"
        return JSONResponse({"note": TRUTH_NOTE, "requests": self.rt.engine.truth(itl)})

    async def engine_death(self, request: HttpRequest) -> Response:
        if not self.rt.dead:
            self.on_death()
        return JSONResponse({"note": "mtptui sim only: the engine core died", "status": self.rt.status})

    def served(self) -> dict[str, Handler]:
        return {"/health": self.health, "/version": self.version, "/v1/models": self.models, "/load": self.load,
                "/metrics": self.metrics, "/tokenize": self.tokenize, "/ping": self.health,
                "/v1/chat/completions": self.chat_completions, "/v1/completions": self.completions}

    def routes(self) -> list[BaseRoute]:
        served, methods = self.served(), dict[str, list[str]]()
        for path, verbs in ROUTES:
            methods.setdefault(path, []).extend(verbs.split(", "))
        routes: list[BaseRoute] = [Route(path, served.get(path, _not_simulated), methods=verbs)
                                   for path, verbs in methods.items()]
        routes += [Route("/metrics/", self.metrics), Route("/sim/requests", self.sim_requests),
                   Route("/sim/engine-death", self.engine_death, methods=["POST"])]
        return routes


async def _not_simulated(request: HttpRequest) -> Response:
    message = f"mtptui sim does not simulate {request.method} {request.url.path} (a route of vLLM {VERSION})"
    return JSONResponse(oai.error_body(message, "NotImplementedError", 501), status_code=501)


async def _http_error(request: HttpRequest, exc: Exception) -> Response:
    """Starlette's answer to an unknown route or method (as FastAPI gives it): ``{"detail": ...}``."""
    assert isinstance(exc, HTTPException)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))


def build_app(rt: VllmRuntime, on_death: Callable[[], None]) -> Starlette:
    return Starlette(routes=VllmApi(rt, on_death).routes(), exception_handlers={HTTPException: _http_error})
