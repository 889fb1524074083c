"""SGLang's OpenAI-compatible JSON shapes (``entrypoints/openai/protocol.py``), as plain dicts, per version.

Text chunks are built the way SGLang's fast path does (msgspec with ``omit_defaults``): the delta always
carries ``reasoning_content`` (null or text) and ``role``/``content`` only when set; a chunk has ``usage`` only
when it carries one. Usage, sglext and non-streaming bodies are pydantic dumps: every field, null when unset,
except the extensions SGLang drops when empty (``sglext``, ``hidden_states``).
"""

from __future__ import annotations

import json
import time

from mtptui.engines.sglang.surface import Surface
from mtptui.sim.jsonbody import Json
from mtptui.sim.request import Request


def dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def usage(surface: Surface, prompt: int, completion: int, reasoning: int = 0, cached: int | None = None) -> Json:
    """UsageInfo: 0.5.12 reports cached tokens only when some were cached; 0.5.23 also reasoning details."""
    details: Json | None = None
    if cached is not None and (cached > 0 or surface.reasoning_details):
        details = {"cached_tokens": cached}
    body: Json = {"prompt_tokens": prompt, "total_tokens": prompt + completion, "completion_tokens": completion,
                  "prompt_tokens_details": details, "reasoning_tokens": reasoning}
    if surface.reasoning_details:
        body["completion_tokens_details"] = {"reasoning_tokens": reasoning} if reasoning else None
    return body


def delta(role: str | None = None, content: str | None = None, reasoning: str | None = None) -> Json:
    body: Json = {"reasoning_content": reasoning}
    if role is not None:
        body["role"] = role
    if content is not None:
        body["content"] = content
    return body


def chunk(rid: str, model: str, choices: list[Json], usage_info: Json | None = None) -> str:
    """One ``data: ...`` text chunk of a chat completion stream (SGLang's fast path)."""
    body: Json = {"id": rid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
                  "choices": choices}
    if usage_info is not None:
        body["usage"] = usage_info
    return f"data: {dumps(body)}\n\n"


def model_chunk(rid: str, model: str, usage_info: Json | None = None, sglext: Json | None = None,
                obj: str = "chat.completion.chunk") -> str:
    """A choice-less chunk as pydantic dumps it (the usage and sglext chunks)."""
    body: Json = {"id": rid, "object": obj, "created": int(time.time()), "model": model, "choices": [],
                  "usage": usage_info}
    if sglext is not None:
        body["sglext"] = sglext
    return f"data: {dumps(body)}\n\n"


def stream_choice(message: Json, finish_reason: str | None = None, matched_stop: int | None = None,
                  index: int = 0) -> Json:
    return {"index": index, "delta": message, "logprobs": None, "finish_reason": finish_reason,
            "matched_stop": matched_stop}


def error_body(message: str, err_type: str = "BadRequestError", code: int = 400) -> Json:
    return {"object": "error", "message": message, "type": err_type, "param": None, "code": code}


def spec_details(surface: Surface, request: Request, drafts_per_round: int) -> Json:
    """``sglext.spec_tokens_details`` of a finished request (per request, end of stream; 0.5.23 only)."""
    proposed = request.verify_ct * drafts_per_round
    values: Json = {
        "spec_accept_rate": request.correct_drafts / proposed if proposed else 0.0,
        "spec_accept_length": request.completion_tokens / request.verify_ct if request.verify_ct else 0.0,
        "spec_cap_length": 0.0, "spec_block_accept_length": 0.0,
        "spec_num_correct_drafts": request.correct_drafts, "spec_num_proposed_drafts": proposed,
        "spec_verify_ct": request.verify_ct, "spec_correct_drafts_histogram": list(request.histogram),
        "spec_cap_lens_histogram": [],
    }
    return {name: values[name] for name in surface.spec_details_fields}


def completion(rid: str, model: str, choices: list[Json], usage_info: Json | None, sglext: Json | None = None,
               obj: str = "chat.completion") -> Json:
    """A non-streaming ``chat.completion`` (or ``text_completion``) body; also the body of a streamed text chunk,
    whose ``usage`` is null unless ``continuous_usage_stats``."""
    body: Json = {"id": rid, "object": obj, "created": int(time.time()), "model": model, "choices": choices,
                  "usage": usage_info, "metadata": {"weight_version": "default"}}
    if sglext is not None:
        body["sglext"] = sglext
    return body


def chat_choice(index: int, message: Json, finish_reason: str | None, matched_stop: int | None) -> Json:
    return {"index": index, "message": message, "logprobs": None, "finish_reason": finish_reason,
            "matched_stop": matched_stop}
