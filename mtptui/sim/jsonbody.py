"""A request's JSON body as FastAPI reads it, for either simulated server (engine-neutral).

Both engines serve their OpenAI routes with FastAPI: a body that is not JSON is a `json_invalid` entry at its
position, JSON that is not an object a `model_attributes_type` entry. Each engine words the entries its own way.
"""

from __future__ import annotations

import json
from typing import Any

Json = dict[str, Any]  # a JSON object as json.loads gives it or json.dumps takes it


def json_object(raw: bytes) -> tuple[Json | None, list[Json]]:
    """The object, or (None, the validation entries FastAPI refuses the body with)."""
    try:
        body = json.loads(raw or b"")
    except ValueError as exc:
        return None, [{"type": "json_invalid", "loc": ("body", getattr(exc, "pos", 0)), "msg": "JSON decode error",
                       "input": {}, "ctx": {"error": getattr(exc, "msg", str(exc))}}]
    if not isinstance(body, dict):
        return None, [{"type": "model_attributes_type", "loc": ("body",),
                       "msg": "Input should be a valid dictionary or object to extract fields from", "input": body}]
    return body, []
