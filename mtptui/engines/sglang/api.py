"""SGLang's HTTP API as mtptui reads it: which paths to ask, in which order, and what counts as an answer.

Transport-free: each caller passes its own ``get_json(path) -> (status, body)`` (the bench's bounded client,
the feed's short-timeout one through the SSH tunnel), so the rules are the same whoever asks.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

SERVER_INFO_PATHS = ("/server_info", "/get_server_info")  # the current name first, then the older one
MODELS_PATH = "/v1/models"
METRICS_PATH = "/metrics"
HEALTH_PATH = "/health"
LOADS_PATH = "/v1/loads"  # the server's own count of the requests it holds (a drain waits for it to reach 0)
HELD_SOURCE = f"its {LOADS_PATH}: running + waiting"
# What mtptui polls (and /health, which monitors poll): uvicorn writes each request as an access line into the log.
POLL_PATHS = (METRICS_PATH, *SERVER_INFO_PATHS, HEALTH_PATH)

GetJson = Callable[[str], Awaitable[tuple[int, Any]]]
GetText = Callable[[str], Awaitable[tuple[int, str]]]


async def first_object(get_json: GetJson, *paths: str) -> dict[str, Any] | None:
    """The first of ``paths`` that answers 200 with a JSON object; None when none does."""
    for path in paths:
        status, body = await get_json(path)
        if status == 200 and isinstance(body, dict):
            return body
    return None


async def server_info(get_json: GetJson) -> dict[str, Any] | None:
    """``/server_info`` (or the older ``/get_server_info``): version, server arguments, internal states."""
    return await first_object(get_json, *SERVER_INFO_PATHS)


async def served_models(get_json: GetJson) -> dict[str, Any] | None:
    """``/v1/models``: the OpenAI-style list of served model names."""
    return await first_object(get_json, MODELS_PATH)


def first_model_id(models: dict[str, Any] | None) -> Any:
    """The first served model's ``id`` in a ``/v1/models`` answer (SGLang serves one), or None."""
    data = (models or {}).get("data")
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return data[0].get("id")
    return None


async def held_requests(get_text: GetText, label: str) -> int:
    """The requests the server at ``label`` holds by its own ``/v1/loads`` (running + waiting); a UserError in one
    sentence when the answer does not give both."""
    import json

    from mtptui.errors import UserError
    from mtptui.gateway.workers import load_counts

    status, text = await get_text(LOADS_PATH)
    try:
        running, waiting = load_counts(json.loads(text)) if status == 200 else (None, None)
    except ValueError:
        running = waiting = None
    if running is None or waiting is None:
        raise UserError(f"{label}{LOADS_PATH} answered HTTP {status} without the counts")
    return running + waiting
