"""Request checks as vLLM 0.32.0 makes them before generating: each failure one error body, with vLLM's words.

Three kinds: FastAPI's request validation as vLLM's handler words it (`1 validation error:\\n  {...}`, type
`Bad Request`, `param` the cleaned location, inputs summarised as `<dict of N items>`); a model that is not
served (404 `NotFoundError`); the serving layer's checks (`BadRequestError`, the message ending in
`(parameter=NAME, value=VALUE)`). Paths in messages are sanitised as vLLM does.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request as HttpRequest

from mtptui.engines.vllm.sim.oai import error_body
from mtptui.sim.jsonbody import json_object


class Refused(Exception):
    """A request vLLM answers with an error body instead of generating."""

    def __init__(self, message: str, err_type: str = "BadRequestError", code: int = 400,
                 param: str | None = None) -> None:
        super().__init__(message)
        self.err_type, self.code, self.param = err_type, code, param

    def body(self) -> dict[str, Any]:
        return error_body(str(self), self.err_type, self.code, self.param)


def _summary(value: object) -> object:
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return f"<{type(value).__name__} of {len(value)} items>"
    return value


def validation_error(entries: list[dict[str, Any]]) -> Refused:
    """FastAPI's RequestValidationError as vLLM's handler words it."""
    shown = []
    for entry in entries:
        shown.append({**entry, "loc": ".".join(str(p) for p in entry["loc"]), "input": _summary(entry["input"])})
    label = "error" if len(entries) == 1 else "errors"
    message = f"{len(entries)} validation {label}:\n" + "".join(f"  {e}\n" for e in shown)
    return Refused(message.rstrip(), "Bad Request", 400, shown[0]["loc"] if shown else None)


def missing(field: str, body: object) -> Refused:
    return validation_error([{"type": "missing", "loc": ("body", field), "msg": "Field required", "input": body}])


def vllm_error(text: str, parameter: str, value: object = None, has_value: bool = True) -> Refused:
    """VLLMValidationError: the message with its parameter (and value) appended."""
    detail = f"parameter={parameter}, value={value}" if has_value else f"parameter={parameter}"
    return Refused(f"{text} ({detail})", "BadRequestError", 400, parameter)


async def json_body(request: HttpRequest) -> dict[str, Any]:
    """The JSON object of a request to an OpenAI route, or vLLM's refusal of it."""
    body, errors = json_object(await request.body())
    if body is None:
        raise validation_error(errors)
    return body


def check_model(body: dict[str, Any], served: str) -> None:
    model = body.get("model")
    if model is not None and model != served:
        raise Refused(f"The model `{model}` does not exist. Valid aliases: {served}.", "NotFoundError", 404, "model")


def number(body: dict[str, Any], key: str, default: float | None = None) -> float | None:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise validation_error([{"type": "float_type", "loc": ("body", key), "msg": "Input should be a valid number",
                                 "input": value}])
    return float(value)


def whole(body: dict[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise validation_error([{"type": "int_type", "loc": ("body", key), "msg": "Input should be a valid integer",
                                 "input": value}])
    return value


def sampling(temperature: float) -> None:
    if temperature < 0:
        raise vllm_error(f"temperature must be non-negative, got {temperature}.", "temperature", temperature)


def lengths(prompt_tokens: int, max_tokens: int | None, max_model_len: int) -> int:
    """The length checks; the generation budget vLLM clamps `max_tokens` to."""
    if max_tokens is not None and max_tokens > max_model_len:
        raise vllm_error(f"max_tokens={max_tokens} cannot be greater than max_model_len={max_model_len}. Please "
                         "request fewer output tokens.", "max_tokens", max_tokens)
    if prompt_tokens > max_model_len:
        count = max_model_len + 1  # the tokenizer stops one past the limit
        raise vllm_error(f"This model's maximum context length is {max_model_len} tokens. However, your prompt "
                         f"contains at least {count} input tokens, which exceeds this limit even without any output "
                         "tokens. Please reduce the length of the input prompt.", "input_tokens", count)
    budget = max_model_len - prompt_tokens
    return min(budget, max_tokens) if max_tokens is not None else budget
