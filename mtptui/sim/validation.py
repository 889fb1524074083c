"""Request checks as SGLang makes them before anything is generated: every failure is an HTTP 400, streamed or not.

Three kinds, with SGLang's texts: FastAPI's request validation (JSON, media type, pydantic fields), turned
into 400 by SGLang's handler as ``"<N> validation error(s):\\n  {...} [{...}]"`` with type ``Bad Request``;
the serving layer's own checks (``Messages cannot be empty.``) and the tokenizer's length and sampling checks
(``BadRequestError``).
"""

from __future__ import annotations

from typing import overload

from starlette.requests import Request as HttpRequest

from mtptui.engines.sglang.surface import Surface
from mtptui.sim.jsonbody import Json, json_object


class BadRequest(Exception):
    """A request SGLang refuses with HTTP 400 before it starts answering."""

    def __init__(self, message: str, err_type: str = "BadRequestError") -> None:
        super().__init__(message)
        self.err_type = err_type


def validation_error(errors: list[Json]) -> BadRequest:
    """FastAPI's RequestValidationError as SGLang's handler words it (``str(exc)`` then ``exc.errors()``)."""
    count = len(errors)
    head = f"{count} validation error{'s' if count != 1 else ''}:\n" + "\n".join(f"  {e!r}" for e in errors)
    return BadRequest(f"{head} {errors!r}", "Bad Request")


def missing(field: str, body: object) -> BadRequest:
    return validation_error([{"type": "missing", "loc": ("body", field), "msg": "Field required", "input": body}])


def wrong_type(field: str, value: object, kind: str) -> BadRequest:
    names = {"int": "a valid integer", "float": "a valid number", "list": "a valid list", "dict": "a valid dictionary"}
    return validation_error([{"type": f"{kind}_type", "loc": ("body", field),
                              "msg": f"Input should be {names[kind]}", "input": value}])


async def json_body(request: HttpRequest, surface: Surface) -> Json:
    """The JSON object of a request to an OpenAI route; BadRequest as FastAPI and SGLang say it."""
    media = request.headers.get("content-type", "").lower().split(";", 1)[0].strip()
    if media != "application/json":
        raise validation_error([{"loc": ["header", "content-type"], "msg": surface.text("media_type"),
                                 "type": "value_error"}])
    body, errors = json_object(await request.body())
    if body is None:
        raise validation_error(errors)
    return body


@overload
def number(body: Json, key: str, kind: type[int], default: int) -> int: ...


@overload
def number(body: Json, key: str, kind: type[int], default: None = None) -> int | None: ...


@overload
def number(body: Json, key: str, kind: type[float], default: float) -> float: ...


def number(body: Json, key: str, kind: type[int] | type[float], default: float | None = None) -> float | None:
    """An int or float field as pydantic reads it (a whole-number float is an int; bool is no number)."""
    value = body.get(key)
    if value is None:
        return default
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        raise wrong_type(key, value, "int" if kind is int else "float")
    return value


def sampling(max_new: int | None, temperature: float, surface: Surface) -> None:
    """The sampling parameters' own checks (``SamplingParams.verify``), those the simulator uses."""
    if temperature < 0:
        raise BadRequest(surface.text("temperature_negative", temperature))
    if max_new is not None and max_new < 0:
        raise BadRequest(surface.text("max_new_tokens_negative", max_new))


def length_error(prompt_tokens: int, max_new: int | None, context_len: int, surface: Surface) -> BadRequest | None:
    """The tokenizer manager's input-length checks."""
    if prompt_tokens >= context_len:
        return BadRequest(surface.text("input_too_long", prompt_tokens, context_len))
    if max_new is not None and prompt_tokens + max_new > context_len:
        return BadRequest(surface.text("context_exceeded", context_len, prompt_tokens + max_new, prompt_tokens,
                                       max_new))
    return None
