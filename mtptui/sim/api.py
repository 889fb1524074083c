"""The simulated server's HTTP API: a Starlette app with exactly the routes of the version's surface.

``GET /sim/requests`` is the one route that is not SGLang's: the server-side truth of every request
(tokens, verify steps, first/last token on ``time.monotonic()``), so measurements can be checked against it;
``?itl=1`` adds every inter-token latency the histogram observed (step end, seconds per token, tokens).
"""

from __future__ import annotations

import asyncio
import json
import time

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from mtptui.engines.sglang.surface import METRICS_CONTENT_TYPE
from mtptui.engines.sglang.surface_shutdown import shutdown_of
from mtptui.sim import admin, info
from mtptui.sim.chat import complete_chat, parse_chat, start_chat, stream_chat
from mtptui.sim.completions import complete_completion, parse_completion, start_completion, stream_completion
from mtptui.sim.native import complete_generate, start_generate, stream_generate
from mtptui.sim.oai import dumps, error_body
from mtptui.sim.runtime import Runtime
from mtptui.sim.validation import BadRequest, json_body

SSE = "text/event-stream"
TRUTH_NOTE = "mtptui sim only, not part of SGLang: server-side truth per request; times are time.monotonic() seconds"
HEALTH_CHECK_TIMEOUT_S = 20


def _error(exc: BadRequest) -> JSONResponse:
    return JSONResponse(error_body(str(exc), exc.err_type), status_code=400)


class SimApi:
    """The route handlers of one runtime."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.surface = rt.boot.surface

    def _deprecated(self, old: str, new: str) -> None:
        self.rt.log.main(self.surface.text("deprecated", old, new), "warning")

    async def chat_completions(self, request: HttpRequest) -> Response:
        try:
            params = parse_chat(await json_body(request, self.surface), self.rt)
            jobs = start_chat(params, self.rt)
        except BadRequest as exc:
            return _error(exc)
        if params.stream:
            return StreamingResponse(stream_chat(params, jobs, self.rt), media_type=SSE)
        return JSONResponse(await complete_chat(params, jobs, self.rt))

    async def completions(self, request: HttpRequest) -> Response:
        try:
            params = parse_completion(await json_body(request, self.surface), self.rt)
            jobs = start_completion(params, self.rt)
        except BadRequest as exc:
            return _error(exc)
        if params.stream:
            return StreamingResponse(stream_completion(params, jobs, self.rt), media_type=SSE)
        return JSONResponse(await complete_completion(params, jobs, self.rt))

    async def generate(self, request: HttpRequest) -> Response:
        try:
            body = json.loads(await request.body() or b"null")
        except ValueError:
            body = None
        stream = isinstance(body, dict) and bool(body.get("stream"))
        try:
            jobs, batch = start_generate(body, self.rt)
        except BadRequest as exc:  # raised inside SGLang's generator: a stream has already started
            if stream:
                events = [f"data: {dumps({'error': {'message': str(exc)}})}\n\n", "data: [DONE]\n\n"]
                return StreamingResponse(iter(events), media_type=SSE)
            return JSONResponse({"error": {"message": str(exc)}}, status_code=400)
        if stream:
            return StreamingResponse(stream_generate(jobs, self.rt, batch), media_type=SSE)
        return JSONResponse(await complete_generate(jobs, self.rt, batch))

    async def health(self, request: HttpRequest) -> Response:
        """503 until warmed up; then a one-token generation, and 200 once the scheduler has answered anything:
        SGLang checks after sleeping a second, so a healthy answer takes a second or more."""
        rt = self.rt
        if rt.status == "draining":
            rt.log.main(shutdown_of(self.surface.version).text("health_refused"))
            return Response(status_code=503)
        if not rt.ready:
            return Response(status_code=503)
        probe = rt.new_request("health", 1, 1, health=True)
        rt.engine.submit(probe)
        tic = time.monotonic()
        try:
            while time.monotonic() < tic + HEALTH_CHECK_TIMEOUT_S:
                await asyncio.sleep(1)
                if rt.engine.last_output > tic:
                    return Response(status_code=200 if rt.ready else 503)
        finally:
            rt.engine.cancel(probe)
        return Response(status_code=503)

    async def ping(self, request: HttpRequest) -> Response:
        return Response(status_code=200)

    async def server_info(self, request: HttpRequest) -> Response:
        if request.url.path == "/get_server_info":
            self._deprecated("/get_server_info", "/server_info")
        return JSONResponse(info.server_info(self.rt))

    async def model_info(self, request: HttpRequest) -> Response:
        if request.url.path == "/get_model_info":
            self._deprecated("/get_model_info", "/model_info")
        return JSONResponse(info.model_info(self.rt))

    async def models(self, request: HttpRequest) -> Response:
        return JSONResponse(info.models(self.rt))

    async def model(self, request: HttpRequest) -> Response:
        status, body = admin.model_card(self.rt, request.path_params["model"])
        return JSONResponse(body, status_code=status)

    async def loads(self, request: HttpRequest) -> Response:
        if request.query_params.get("format") == "prometheus":
            return PlainTextResponse(admin.loads_prometheus(self.rt), media_type=METRICS_CONTENT_TYPE)
        return JSONResponse(admin.loads(self.rt, request.query_params.get("include")))

    async def get_load(self, request: HttpRequest) -> Response:
        self._deprecated("/get_load", "/v1/loads")
        return JSONResponse(admin.get_load(self.rt))

    async def flush_cache(self, request: HttpRequest) -> Response:
        if admin.flush_cache(self.rt):
            return PlainTextResponse(self.surface.text("cache_flushed"))
        return PlainTextResponse("Flush cache failed.\n", status_code=400)

    async def ready(self, request: HttpRequest) -> Response:
        return Response(status_code=200 if self.rt.ready else 503)

    async def metrics(self, request: HttpRequest) -> Response:
        assert self.rt.metrics is not None  # routed only with --enable-metrics (routes())
        return Response(self.rt.metrics.render(), media_type=METRICS_CONTENT_TYPE)

    async def sim_requests(self, request: HttpRequest) -> Response:
        itl = request.query_params.get("itl") == "1"  # every inter-token latency the histogram observed
        return JSONResponse({"note": TRUTH_NOTE, "requests": self.rt.engine.truth(itl)})

    def routes(self) -> list[Route]:
        handlers = {
            "/v1/chat/completions": self.chat_completions, "/v1/completions": self.completions,
            "/generate": self.generate, "/health": self.health, "/health_generate": self.health, "/ping": self.ping,
            "/server_info": self.server_info, "/get_server_info": self.server_info, "/model_info": self.model_info,
            "/get_model_info": self.model_info, "/v1/models": self.models, "/v1/models/{model:path}": self.model,
            "/v1/loads": self.loads, "/get_load": self.get_load, "/flush_cache": self.flush_cache, "/ready": self.ready,
        }
        routes = [Route(path, handlers[path], methods=list(methods)) for path, methods in self.surface.routes.items()]
        routes.append(Route("/sim/requests", self.sim_requests))
        if self.rt.metrics is not None:
            routes.append(Route("/metrics", self.metrics))
        return routes


async def _http_error(request: HttpRequest, exc: Exception) -> Response:
    """FastAPI's answer to an unknown route or method: ``{"detail": ...}``."""
    assert isinstance(exc, HTTPException)  # registered for HTTPException only (build_app)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))


def build_app(rt: Runtime) -> Starlette:
    """The Starlette app of one simulated server."""
    return Starlette(routes=SimApi(rt).routes(), exception_handlers={HTTPException: _http_error})
