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


def build_app(rt: Runtime) -> Starlette:
    """Routes bound to one runtime."""

    async def chat_completions(request: HttpRequest) -> Response:
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

    async def generate(request: HttpRequest) -> Response:
        try:
            job, stream = start_generate(await _json(request), rt)
        except BadRequest as exc:
            return _error(str(exc), exc.err_type)
        if stream:
            return StreamingResponse(stream_generate(job, rt), media_type=SSE)
        return JSONResponse(await complete_generate(job, rt))

    async def health(request: HttpRequest) -> Response:
        if not rt.ready:
            return Response(status_code=503)
        if not rt.engine.running:  # SGLang skips the probe generation while requests are running
            probe = rt.new_request("health", 1, 1, health=True)
            rt.engine.submit(probe)
            while (await probe.outputs.get()).finish_reason is None:
                pass
        return Response(status_code=200)

    async def server_info(request: HttpRequest) -> Response:
        if request.url.path == "/get_server_info":
            _deprecated(rt, "/get_server_info", "/server_info")
        return JSONResponse(info.server_info(rt))

    async def model_info(request: HttpRequest) -> Response:
        if request.url.path == "/get_model_info":
            _deprecated(rt, "/get_model_info", "/model_info")
        return JSONResponse(info.model_info(rt))

    async def models(request: HttpRequest) -> Response:
        return JSONResponse(info.models(rt))

    async def metrics(request: HttpRequest) -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST

        return Response(rt.metrics.render(), media_type=CONTENT_TYPE_LATEST)

    async def sim_requests(request: HttpRequest) -> Response:
        return JSONResponse({"note": TRUTH_NOTE, "requests": rt.engine.truth()})

    routes = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/generate", generate, methods=["POST"]),
        Route("/health", health), Route("/health_generate", health),
        Route("/server_info", server_info), Route("/get_server_info", server_info),
        Route("/model_info", model_info), Route("/get_model_info", model_info),
        Route("/v1/models", models), Route("/sim/requests", sim_requests),
    ]
    if rt.metrics is not None:
        routes.append(Route("/metrics", metrics))
    return Starlette(routes=routes)
