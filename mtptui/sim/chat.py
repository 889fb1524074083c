"""``POST /v1/chat/completions``: request checks, then SGLang's streaming or non-streaming answer.

Stream order (serving_chat.py ``_generate_chat_stream``): role chunk with the first output, then per
output a ``reasoning_content`` chunk (with ``--reasoning-parser``) and a ``content`` chunk, then the finish
chunk, ``sglext.spec_tokens_details`` (when asked), the usage chunk (when asked) and ``[DONE]``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import AsyncIterator

from mtptui.sim import oai
from mtptui.sim.request import Output, Request
from mtptui.sim.runtime import Runtime
from mtptui.sim.textgen import count_prompt_tokens


class BadRequest(Exception):
    """A request SGLang answers with HTTP 400 (or, once streaming, with an error chunk)."""

    def __init__(self, message: str, err_type: str = "BadRequestError") -> None:
        super().__init__(message)
        self.err_type = err_type


@dataclass
class ChatParams:
    messages: list[dict]
    model: str
    stream: bool
    include_usage: bool
    continuous_usage: bool
    max_new_tokens: int | None
    temperature: float
    ignore_eos: bool
    thinking: bool
    separate_reasoning: bool
    spec_details: bool
    prompt_tokens: int
    prompt_key: str


def _number(body: dict, key: str, kind, minimum: float | None = None):
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        raise BadRequest(f"1 validation error for ChatCompletionRequest\n{key}\n  Input should be a valid "
                         f"{'integer' if kind is int else 'number'}", "Bad Request")
    if minimum is not None and value < minimum:
        raise BadRequest(f"{key} must be {'positive' if minimum > 0 else 'non-negative'}", "Bad Request")
    return value


def _messages(body: dict) -> list[dict]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("1 validation error for ChatCompletionRequest\nmessages\n  Field required", "Bad Request")
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant", "tool",
                                                                          "developer"):
            raise BadRequest("1 validation error for ChatCompletionRequest\nmessages\n  Input tag does not match "
                             "any of the expected tags: 'system', 'user', 'assistant', 'tool', 'developer'",
                             "Bad Request")
    return messages


def _thinking(body: dict, rt: Runtime) -> bool:
    kwargs = body.get("chat_template_kwargs") or {}
    if body.get("reasoning_effort") == "none":
        return False
    return rt.thinking_model and kwargs.get("enable_thinking", True) is not False


def parse_chat(body: object, rt: Runtime) -> ChatParams:
    """Validate a request body the way SGLang's pydantic model does (the parts the simulator uses)."""
    if not isinstance(body, dict):
        raise BadRequest("Input should be a valid dictionary", "Bad Request")
    messages = _messages(body)
    if (body.get("n") or 1) != 1:
        raise BadRequest("the simulated server supports n=1 only")
    max_new = _number(body, "max_completion_tokens", int, 1) or _number(body, "max_tokens", int, 1)
    options = body.get("stream_options") or {}
    return ChatParams(
        messages=messages, model=str(body.get("model") or "default"), stream=bool(body.get("stream")),
        include_usage=bool(options.get("include_usage")) or rt.boot.settings.default_include_usage,
        continuous_usage=bool(options.get("continuous_usage_stats")),
        max_new_tokens=max_new, temperature=float(_number(body, "temperature", float, 0) or 0.0),
        ignore_eos=bool(body.get("ignore_eos")), thinking=_thinking(body, rt),
        separate_reasoning=bool(rt.boot.settings.reasoning_parser) and body.get("separate_reasoning", True) is not False,
        spec_details=bool(body.get("return_spec_tokens_details")), prompt_tokens=count_prompt_tokens(messages),
        prompt_key=json.dumps(messages, sort_keys=True),
    )


def length_error(params: ChatParams, context_len: int) -> str | None:
    """SGLang's input-length checks (tokenizer manager)."""
    if params.prompt_tokens >= context_len:
        return (f"The input ({params.prompt_tokens} tokens) is longer than the model's context length "
                f"({context_len} tokens).")
    if params.max_new_tokens is not None and params.prompt_tokens + params.max_new_tokens > context_len:
        total = params.prompt_tokens + params.max_new_tokens
        return (f"Requested token count exceeds the model's maximum context length of {context_len} tokens. "
                f"You requested a total of {total} tokens: {params.prompt_tokens} tokens from the input messages "
                f"and {params.max_new_tokens} tokens for the completion. Please reduce the number of tokens in "
                "the input messages or the completion to fit within the limit.")
    return None


def start_request(params: ChatParams, rt: Runtime) -> Request:
    request = rt.new_request(params.prompt_key, params.prompt_tokens, params.max_new_tokens,
                             temperature=params.temperature, thinking=params.thinking, ignore_eos=params.ignore_eos)
    rt.engine.submit(request)
    return request


def split_text(output: Output, separate: bool) -> tuple[str, str]:
    """(reasoning, content) of one output; without a reasoning parser the think tags stay in the content."""
    if not separate:
        return "", "".join(p.text for p in output.pieces)
    reasoning = "".join(p.text for p in output.pieces if p.kind == "reasoning")
    return reasoning, "".join(p.text for p in output.pieces if p.kind == "content")


def _usage_of(params: ChatParams, request: Request, output: Output, rt: Runtime) -> dict:
    cached = request.cached_tokens if rt.boot.settings.enable_cache_report else None
    reasoning = output.reasoning_tokens if params.separate_reasoning else 0
    return oai.usage(request.prompt_tokens, output.completion_tokens, reasoning, cached)


async def outputs(request: Request) -> AsyncIterator[Output]:
    while True:
        output = await request.outputs.get()
        yield output
        if output.finish_reason is not None:
            return


async def stream_chat(params: ChatParams, request: Request, rt: Runtime) -> AsyncIterator[str]:
    rid, model = request.rid, params.model
    last: Output | None = None
    try:
        async for output in outputs(request):
            if last is None:
                yield oai.chunk(rid, model, [oai.stream_choice(oai.delta("assistant", ""))])
            last = output
            running = _usage_of(params, request, output, rt) if params.continuous_usage else None
            reasoning, content = split_text(output, params.separate_reasoning)
            if reasoning:
                yield oai.chunk(rid, model, [oai.stream_choice(oai.delta(reasoning=reasoning))], running)
            if content:
                yield oai.chunk(rid, model, [oai.stream_choice(oai.delta(content=content))], running)
        yield oai.chunk(rid, model, [oai.stream_choice(oai.delta(), last.finish_reason, last.matched_stop)])
        if params.spec_details and rt.boot.settings.speculative:
            details = oai.spec_details(request, rt.boot.decode.drafts_per_round)
            yield oai.chunk(rid, model, [], sglext={"spec_tokens_details": details})
        if params.include_usage:
            yield oai.chunk(rid, model, [], _usage_of(params, request, last, rt))
        yield "data: [DONE]\n\n"
    finally:
        if not request.finished:
            rt.engine.cancel(request)


async def complete_chat(params: ChatParams, request: Request, rt: Runtime) -> dict:
    reasoning_parts, content_parts, last = [], [], None
    try:
        async for output in outputs(request):
            reasoning, content = split_text(output, params.separate_reasoning)
            reasoning_parts.append(reasoning)
            content_parts.append(content)
            last = output
    finally:
        if not request.finished:
            rt.engine.cancel(request)
    reasoning, content = "".join(reasoning_parts), "".join(content_parts)
    message = {"role": "assistant", "content": content or None, "reasoning_content": reasoning or None,
               "tool_calls": None}
    sglext = None
    if params.spec_details and rt.boot.settings.speculative:
        sglext = {"spec_tokens_details": oai.spec_details(request, rt.boot.decode.drafts_per_round)}
    return oai.completion(request.rid, params.model, message, last.finish_reason, last.matched_stop,
                          _usage_of(params, request, last, rt), sglext)
