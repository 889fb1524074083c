"""vLLM 0.32.0's OpenAI-compatible JSON shapes, as plain dicts in vLLM's field order.

Non-streaming bodies are pydantic dumps (every field, null when unset). Streamed chunks are dumped with
`exclude_unset`: the role chunk has `prompt_token_ids`/`prompt_text` at the end, text chunks a `token_ids` per
choice, the chunk carrying `finish_reason` also `stop_reason`; without `include_usage` that chunk carries the
`system_fingerprint`, with it the trailing usage chunk does (dumped with `exclude_none`: three usage numbers).
With `continuous_usage_stats` every chunk carries the usage so far.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

Json = dict[str, Any]
CHUNK, COMPLETION = "chat.completion.chunk", "text_completion"
_PATH_LIKE = re.compile(r"/(?:home|usr|opt|var|tmp|root|lib|mnt|srv)(?:/[\w.\-]+)+")
_FILE_LIKE = re.compile(r"(?:/[\w\-]+)+/[\w\-]+\.\w+")


def dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def sse(obj: object) -> str:
    return f"data: {dumps(obj)}\n\n"


def sanitize(message: str) -> str:
    """vLLM's `sanitize_message`: file paths in an error message become `<path>`."""
    return _FILE_LIKE.sub("<path>", _PATH_LIKE.sub("<path>", message)).strip()


def error_body(message: str, err_type: str = "BadRequestError", code: int = 400, param: str | None = None) -> Json:
    return {"error": {"message": sanitize(message), "type": err_type, "param": param, "code": code}}


def usage(prompt: int, completion: int, *, full: bool = True) -> Json:
    body: Json = {"prompt_tokens": prompt, "total_tokens": prompt + completion,
                            "completion_tokens": completion}
    if full:
        body.update(prompt_tokens_details=None, completion_tokens_details=None)
    return body


def running_usage(prompt: int, completion: int) -> Json:
    """The continuous usage a stream chunk carries."""
    return {"prompt_tokens": prompt, "total_tokens": prompt + completion, "completion_tokens": completion,
            "completion_tokens_details": None}


def head(rid: str, obj: str, model: str) -> Json:
    return {"id": rid, "object": obj, "created": int(time.time()), "model": model}


def chat_message(content: str | None, reasoning: str | None) -> Json:
    return {"role": "assistant", "content": content, "refusal": None, "annotations": None, "audio": None,
            "function_call": None, "reasoning": reasoning}


def chat_completion(rid: str, model: str, choices: list[Json], usage_: Json, fingerprint: str) -> Json:
    return {**head(rid, "chat.completion", model), "choices": choices, "service_tier": None,
            "system_fingerprint": fingerprint, "usage": usage_, "prompt_logprobs": None, "prompt_token_ids": None,
            "prompt_text": None, "kv_transfer_params": None, "ec_transfer_params": None, "metrics": None}


def chat_choice(index: int, message: Json, finish_reason: str | None) -> Json:
    return {"index": index, "message": message, "logprobs": None, "finish_reason": finish_reason,
            "stop_reason": None, "token_ids": None, "routed_experts": None}


def text_completion(rid: str, model: str, choices: list[Json], usage_: Json, fingerprint: str) -> Json:
    return {**head(rid, COMPLETION, model), "choices": choices, "service_tier": None,
            "system_fingerprint": fingerprint, "usage": usage_, "kv_transfer_params": None,
            "ec_transfer_params": None, "metrics": None}


def text_choice(index: int, text: str, finish_reason: str | None) -> Json:
    return {"index": index, "text": text, "logprobs": None, "finish_reason": finish_reason, "stop_reason": None,
            "token_ids": None, "prompt_logprobs": None, "prompt_token_ids": None, "routed_experts": None}


def role_chunk(rid: str, model: str, index: int, running: Json | None) -> Json:
    body = {**head(rid, CHUNK, model), "choices": [{"index": index, "delta": {"role": "assistant", "content": ""},
                                                   "logprobs": None, "finish_reason": None}]}
    if running is not None:
        body["usage"] = running
    return {**body, "prompt_token_ids": None, "prompt_text": None}


def delta_choice(index: int, delta: Json, finish_reason: str | None) -> Json:
    choice: Json = {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
    if finish_reason is not None:
        choice["stop_reason"] = None
    choice["token_ids"] = None
    return choice


def stream_text_choice(index: int, text: str, finish_reason: str | None) -> Json:
    return {"index": index, "text": text, "logprobs": None, "finish_reason": finish_reason, "stop_reason": None,
            "prompt_token_ids": None, "token_ids": None}


def chunk(rid: str, obj: str, model: str, choice: Json, running: Json | None, fingerprint: str | None) -> Json:
    """One streamed chunk of text; ``fingerprint`` on the finishing chunk when no usage chunk follows."""
    body: Json = {**head(rid, obj, model), "choices": [choice]}
    if running is not None:
        body["usage"] = running
    if fingerprint is not None:
        body["system_fingerprint"] = fingerprint
    return body


def usage_chunk(rid: str, obj: str, model: str, usage_: Json, fingerprint: str) -> Json:
    return {**head(rid, obj, model), "choices": [], "usage": usage_, "system_fingerprint": fingerprint}


def model_card(name: str, max_model_len: int, created: int, permission_id: str) -> Json:
    permission = {"id": permission_id, "object": "model_permission", "created": created,
                  "allow_create_engine": False, "allow_sampling": True, "allow_logprobs": True,
                  "allow_search_indices": False, "allow_view": True, "allow_fine_tuning": False,
                  "organization": "*", "group": None, "is_blocking": False}
    return {"id": name, "object": "model", "created": created, "owned_by": "vllm", "root": name, "parent": None,
            "max_model_len": max_model_len, "permission": [permission]}
