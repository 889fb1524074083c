"""One streamed chat completion as a timeline: SSE `data:` payloads turned into timestamped chunks.

Pure functions on strings, so recorded streams can be replayed in tests without a server. The format is
SGLang's (`../shared/reference/serving-benchmarks.md` §2.1): role chunk, reasoning and content chunks (each
with a cumulative `usage` under `continuous_usage_stats`), finish chunk, optional `sglext` chunk, usage chunk,
`[DONE]`. Missing and null fields are treated alike.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

ERROR_CHARS = 300  # of a server's error message kept (it reaches the history)
RID_CHARS = 128
ABORTED = "the server aborted the request (finish_reason abort: it was stopped, or dropped the request)"


@dataclass(slots=True)
class Chunk:
    """A chunk that carried a choice: its arrival time, its text and the cumulative usage it reported."""

    t: float
    reasoning: str = ""
    content: str = ""
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    finish_reason: str | None = None
    usage_only: bool = False

    @property
    def has_text(self) -> bool:
        return bool(self.reasoning or self.content)


@dataclass(slots=True)
class StreamRecord:
    """Everything the client saw of one request; `start` and every `t` are `time.perf_counter()` values."""

    start: float
    chunks: list[Chunk] = field(default_factory=list)
    end: float | None = None
    done: bool = False
    error: str | None = None
    status: int | None = None
    content_type: str | None = None
    rid: str | None = None
    events: int = 0
    usage: dict[str, Any] | None = None
    spec: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.done


class Malformed(ValueError):
    """A chunk field of the wrong type or out of range; the message names the field."""


MAX_TOKEN_COUNT = 10_000_000  # more than any context length: a count beyond it is not a count
_KINDS = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
          float: "a number"}


def _kind(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def _get(obj: dict[str, Any], key: str, kind: type, where: str) -> Any:
    """``obj[key]`` when it is missing, null or of ``kind``; Malformed otherwise."""
    value = obj.get(key)
    if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
        return value
    raise Malformed(f"{where}{key} is {_kind(value)}, not {_KINDS[kind]}")


def _count(obj: dict[str, Any], key: str, where: str) -> int | None:
    """A token count: missing, null or an integer in 0..MAX_TOKEN_COUNT."""
    value = obj.get(key)
    if value is None:
        return None
    if type(value) is not int or not 0 <= value <= MAX_TOKEN_COUNT:
        shown = value if type(value) in (int, float) else _kind(value)
        raise Malformed(f"{where}{key} is {shown}, not a count of tokens")
    return value


def _number(obj: dict[str, Any], key: str, where: str) -> float | None:
    """A finite number, or None when missing or null."""
    value = obj.get(key)
    if value is None:
        return None
    if (type(value) is not int and type(value) is not float) or not math.isfinite(value):
        shown = value if type(value) is float else _kind(value)
        raise Malformed(f"{where}{key} is {shown}, not a finite number")
    return value


def error_message(obj: Any) -> str | None:
    """The message of an error payload (`{"error": {...}}` or `{"object": "error", ...}`), else None."""
    if not isinstance(obj, dict):
        return None
    err = obj.get("error")
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or err)
    if isinstance(err, str):
        return err
    if obj.get("object") == "error":
        return str(obj.get("message") or "error")
    return None


def _text(delta: dict[str, Any], where: str, *keys: str) -> str:
    return "".join(value for key in keys if (value := _get(delta, key, str, where)))


def _tool_text(delta: dict[str, Any], where: str) -> str:
    parts = []
    for i, call in enumerate(_get(delta, "tool_calls", list, where) or []):
        if not isinstance(call, dict):
            raise Malformed(f"{where}tool_calls[{i}] is {_kind(call)}, not an object")
        function = _get(call, "function", dict, f"{where}tool_calls[{i}].") or {}
        parts.append(_get(function, "arguments", str, f"{where}tool_calls[{i}].function.") or "")
    return "".join(parts)


def _chunk_from_choice(choice: dict[str, Any], usage: dict[str, Any], t: float) -> Chunk:
    delta = _get(choice, "delta", dict, "choices[0].") or {}
    where = "choices[0].delta."
    return Chunk(
        t=t,
        reasoning=_text(delta, where, "reasoning_content", "reasoning"),
        content=_text(delta, where, "content") + _tool_text(delta, where),
        completion_tokens=usage.get("completion_tokens"),
        reasoning_tokens=usage.get("reasoning_tokens"),
        finish_reason=_get(choice, "finish_reason", str, "choices[0]."),
    )


def _usage(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The token counts of a chunk's ``usage`` (only those: nothing else of it is kept)."""
    usage = _get(obj, "usage", dict, "")
    if usage is None:
        return None
    return {key: _count(usage, key, "usage.") for key in ("completion_tokens", "reasoning_tokens")}


def _spec_details(obj: dict[str, Any]) -> dict[str, Any] | None:
    details = (_get(obj, "sglext", dict, "") or {}).get("spec_tokens_details")
    if isinstance(details, list):
        details = details[0] if details else None
    if details is None:
        return None
    if not isinstance(details, dict):
        raise Malformed(f"sglext.spec_tokens_details is {_kind(details)}, not an object")
    where = "sglext.spec_tokens_details."
    return {key: _number(details, key, where) for key in ("spec_verify_ct", "spec_accept_length")}


def _choices(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The choices of index 0 (SGLang streams one choice per request here)."""
    choices = _get(obj, "choices", list, "") or []
    for i, choice in enumerate(choices):
        if not isinstance(choice, dict):
            raise Malformed(f"choices[{i}] is {_kind(choice)}, not an object")
    return [choice for choice in choices if choice.get("index", 0) == 0]


def apply_event(record: StreamRecord, data: str, t: float) -> Chunk | None:
    """Fold one SSE `data:` payload received at `t` into `record`; return the chunk it added, if any.

    A usage-only chunk (`choices: []`) is returned with `usage_only=True` so that a live counter can book the
    tokens it reports, but it is not added to `record.chunks` (it is not a point of the token timeline).
    A payload that is not JSON, or whose fields have the wrong types, sets `record.error` ("malformed chunk").
    """
    if data.strip() == "[DONE]":
        record.done, record.end = True, t
        return None
    try:
        obj = json.loads(data)
    except ValueError:
        record.error = record.error or f"malformed chunk: {data[:80]!r}"
        return None
    except RecursionError:
        record.error = record.error or "malformed chunk: nested too deeply to read"
        return None
    if (message := error_message(obj)) is not None:
        record.error = record.error or f"server error in stream: {message[:ERROR_CHARS]}"
        return None
    if not isinstance(obj, dict):
        record.error = record.error or f"malformed chunk: {_kind(obj)}, not an object"
        return None
    try:
        return _apply_object(record, obj, t)
    except Malformed as exc:
        record.error = record.error or f"malformed chunk: {exc}"
        return None


def _apply_object(record: StreamRecord, obj: dict[str, Any], t: float) -> Chunk | None:
    if record.rid is None and isinstance(obj.get("id"), str):
        record.rid = obj["id"][:RID_CHARS]
    usage, spec, choices = _usage(obj), _spec_details(obj), _choices(obj)
    if usage is not None:
        record.usage = usage
    if spec is not None:
        record.spec = spec
    if choices:
        chunk = _chunk_from_choice(choices[0], usage or {}, t)
        record.chunks.append(chunk)
        if chunk.finish_reason == "abort":  # stopped under it (a restart, a shutdown), however the stream ends
            record.error = record.error or ABORTED
        return chunk
    if usage is not None:
        return Chunk(t=t, completion_tokens=usage["completion_tokens"], reasoning_tokens=usage["reasoning_tokens"],
                     usage_only=True)
    return None
