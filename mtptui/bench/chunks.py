"""One streamed chat completion as a timeline: SSE `data:` payloads turned into timestamped chunks.

Pure functions on strings, so recorded streams can be replayed in tests without a server. The format is
SGLang's (`../shared/reference/serving-benchmarks.md` §2.1): role chunk, reasoning and content chunks (each
with a cumulative `usage` under `continuous_usage_stats`), finish chunk, optional `sglext` chunk, usage chunk,
`[DONE]`. Missing and null fields are treated alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


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


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


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


def _text(delta: dict[str, Any], *keys: str) -> str:
    return "".join(v for k in keys if isinstance(v := delta.get(k), str))


def _tool_text(delta: dict[str, Any]) -> str:
    calls = delta.get("tool_calls") or []
    parts = [((c or {}).get("function") or {}).get("arguments") or "" for c in calls if isinstance(c, dict)]
    return "".join(p for p in parts if isinstance(p, str))


def _chunk_from_choice(choice: dict[str, Any], usage: dict[str, Any] | None, t: float) -> Chunk:
    delta = choice.get("delta") or {}
    return Chunk(
        t=t,
        reasoning=_text(delta, "reasoning_content", "reasoning"),
        content=_text(delta, "content") + _tool_text(delta),
        completion_tokens=_int((usage or {}).get("completion_tokens")),
        reasoning_tokens=_int((usage or {}).get("reasoning_tokens")),
        finish_reason=choice.get("finish_reason"),
    )


def _spec_details(obj: dict[str, Any]) -> dict[str, Any] | None:
    details = (obj.get("sglext") or {}).get("spec_tokens_details")
    if isinstance(details, list):
        details = details[0] if details else None
    return details if isinstance(details, dict) else None


def apply_event(record: StreamRecord, data: str, t: float) -> Chunk | None:
    """Fold one SSE `data:` payload received at `t` into `record`; return the chunk it added, if any.

    A usage-only chunk (`choices: []`) is returned with `usage_only=True` so that a live counter can book the
    tokens it reports, but it is not added to `record.chunks` (it is not a point of the token timeline).
    """
    if data.strip() == "[DONE]":
        record.done, record.end = True, t
        return None
    try:
        obj = json.loads(data)
    except ValueError:
        record.error = record.error or f"malformed chunk: {data[:80]!r}"
        return None
    if (message := error_message(obj)) is not None:
        record.error = record.error or f"server error in stream: {message}"
        return None
    if not isinstance(obj, dict):
        record.error = record.error or f"unexpected chunk: {data[:80]!r}"
        return None
    return _apply_object(record, obj, t)


def _apply_object(record: StreamRecord, obj: dict[str, Any], t: float) -> Chunk | None:
    if record.rid is None and isinstance(obj.get("id"), str):
        record.rid = obj["id"]
    usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else None
    if usage is not None:
        record.usage = usage
    if (spec := _spec_details(obj)) is not None:
        record.spec = spec
    choices = [c for c in obj.get("choices") or [] if isinstance(c, dict) and c.get("index", 0) == 0]
    if choices:
        chunk = _chunk_from_choice(choices[0], usage, t)
        record.chunks.append(chunk)
        return chunk
    if usage is not None:
        return Chunk(t=t, completion_tokens=_int(usage.get("completion_tokens")),
                     reasoning_tokens=_int(usage.get("reasoning_tokens")), usage_only=True)
    return None
