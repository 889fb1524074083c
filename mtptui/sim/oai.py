"""SGLang's OpenAI-compatible JSON shapes (``entrypoints/openai/protocol.py``), as plain dicts.

Chunks are serialised the way pydantic's ``model_dump_json()`` does there: every field present, unset
ones as null, except the optional extensions SGLang drops when empty (``sglext``, ``hidden_states``).
"""

from __future__ import annotations

import json
import time

from mtptui.sim.request import Request


def dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def usage(prompt: int, completion: int, reasoning: int = 0, cached: int | None = None) -> dict:
    details = {"cached_tokens": cached} if cached is not None else None
    return {"prompt_tokens": prompt, "total_tokens": prompt + completion, "completion_tokens": completion,
            "prompt_tokens_details": details, "reasoning_tokens": reasoning}


def delta(role: str | None = None, content: str | None = None, reasoning: str | None = None) -> dict:
    return {"role": role, "content": content, "reasoning_content": reasoning, "tool_calls": None}


def chunk(rid: str, model: str, choices: list[dict], usage_info: dict | None = None,
          sglext: dict | None = None) -> str:
    """One ``data: ...`` event of a chat completion stream."""
    body = {"id": rid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "choices": choices, "usage": usage_info}
    if sglext is not None:
        body["sglext"] = sglext
    return f"data: {dumps(body)}\n\n"


def stream_choice(message: dict, finish_reason: str | None = None, matched_stop: int | None = None) -> dict:
    return {"index": 0, "delta": message, "logprobs": None, "finish_reason": finish_reason,
            "matched_stop": matched_stop}


def error_body(message: str, err_type: str = "BadRequestError", code: int = 400) -> dict:
    return {"object": "error", "message": message, "type": err_type, "param": None, "code": code}


def stream_error(message: str, err_type: str = "BadRequestError", code: int = 400) -> str:
    return f"data: {dumps({'error': error_body(message, err_type, code)})}\n\n"


def spec_details(request: Request, drafts_per_round: int) -> dict:
    """``sglext.spec_tokens_details`` of a finished request (per request, end of stream)."""
    proposed = request.verify_ct * drafts_per_round
    return {
        "spec_accept_rate": request.correct_drafts / proposed if proposed else 0.0,
        "spec_accept_length": request.completion_tokens / request.verify_ct if request.verify_ct else 0.0,
        "spec_num_correct_drafts": request.correct_drafts,
        "spec_num_proposed_drafts": proposed,
        "spec_verify_ct": request.verify_ct,
        "spec_correct_drafts_histogram": list(request.histogram),
    }


def completion(rid: str, model: str, message: dict, finish_reason: str | None, matched_stop: int | None,
               usage_info: dict, sglext: dict | None = None) -> dict:
    """A non-streaming ``chat.completion`` body."""
    body = {
        "id": rid, "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason,
                     "matched_stop": matched_stop}],
        "usage": usage_info, "metadata": {"weight_version": "default"},
    }
    if sglext is not None:
        body["sglext"] = sglext
    return body
