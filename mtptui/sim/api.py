"""The simulated server's HTTP API: a Starlette app with SGLang's routes.

``GET /sim/requests`` is the one route that is not SGLang's: the server-side truth of every request
(tokens, verify steps, first/last token on ``time.monotonic()``), so measurements can be checked against it.
"""

from __future__ import annotations

import json

from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from mtptui.sim import info
from mtptui.sim.chat import BadRequest, complete_chat, length_error, parse_chat, start_request, stream_chat
from mtptui.sim.native import complete_generate, start_generate, stream_generate
from mtptui.sim.oai import error_body, stream_error
from mtptui.sim.runtime import Runtime

SSE = "text/event-stream"
TRUTH_NOTE = "mtptui sim only, not part of SGLang: server-side truth per request; times are time.monotonic() seconds"


def _error(message: str, err_type: str = "BadRequestError", code: int = 400) -> JSONResponse:
    return JSONResponse(error_body(message, err_type, code), status_code=code)


async def _json(request: HttpRequest) -> object:
    try:
        return json.loads(await request.body() or b"null")
    except ValueError as exc:
        raise BadRequest(f"JSON decode error: {exc}", "Bad Request") from None


def _deprecated(rt: Runtime, old: str, new: str) -> None:
    if rt.boot.settings.version == "0.5.23":
        rt.log.main(f"Endpoint '{old}' is deprecated and will be removed in a future version. "
                    f"Please use '{new}' instead.", "warning")


class SimApi:
    """The route handlers of one runtime."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    async def chat_completions(self, request: HttpRequest) -> Response:
        rt = self.rt
        try:
            params = parse_chat(await _json(request), rt)
        except BadRequest as exc:
            return _error(str(exc), exc.err_type)
        problem = length_error(params, rt.boot.context_len)
        if problem and params.stream:
            return StreamingResponse(iter([stream_error(problem), "data: [DONE]\n\n"]), media_type=SSE)
        if problem:
            return _error(problem)
        job = start_request(params, rt)
        if params.stream:
            return StreamingResponse(stream_chat(params, job, rt), media_type=SSE)
        return JSONResponse(await complete_chat(params, job, rt))

    async def generate(self, request: HttpRequest) -> Response:
        try:
            job, stream = start_generate(await _json(request), self.rt)
        except BadRequest as exc:
            return _error(str(exc), exc.err_type)
        if stream:
            return StreamingResponse(stream_generate(job, self.rt), media_type=SSE)
        return JSONResponse(await complete_generate(job, self.rt))

    async def health(self, request: HttpRequest) -> Response:
        """503 until warmed up; then a one-token generation, skipped while requests are running (as SGLang)."""
        rt = self.rt
        if not rt.ready:
            return Response(status_code=503)
        if not rt.engine.running:
            probe = rt.new_request("health", 1, 1, health=True)
            rt.engine.submit(probe)
            while (await probe.outputs.get()).finish_reason is None:
                pass
        return Response(status_code=200 if rt.ready else 503)

    async def server_info(self, request: HttpRequest) -> Response:
        if request.url.path == "/get_server_info":
            _deprecated(self.rt, "/get_server_info", "/server_info")
        return JSONResponse(info.server_info(self.rt))

    async def model_info(self, request: HttpRequest) -> Response:
        if request.url.path == "/get_model_info":
            _deprecated(self.rt, "/get_model_info", "/model_info")
        return JSONResponse(info.model_info(self.rt))

    async def models(self, request: HttpRequest) -> Response:
        return JSONResponse(info.models(self.rt))

    async def metrics(self, request: HttpRequest) -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST

        return Response(self.rt.metrics.render(), media_type=CONTENT_TYPE_LATEST)

    async def sim_requests(self, request: HttpRequest) -> Response:
        return JSONResponse({"note": TRUTH_NOTE, "requests": self.rt.engine.truth()})

    def routes(self) -> list[Route]:
        routes = [
            Route("/v1/chat/completions", self.chat_completions, methods=["POST"]),
            Route("/generate", self.generate, methods=["POST"]),
            Route("/health", self.health), Route("/health_generate", self.health),
            Route("/server_info", self.server_info), Route("/get_server_info", self.server_info),
            Route("/model_info", self.model_info), Route("/get_model_info", self.model_info),
            Route("/v1/models", self.models), Route("/sim/requests", self.sim_requests),
        ]
        if self.rt.metrics is not None:
            routes.append(Route("/metrics", self.metrics))
        return routes


def build_app(rt: Runtime) -> Starlette:
    """The Starlette app of one simulated server."""
    return Starlette(routes=SimApi(rt).routes())
