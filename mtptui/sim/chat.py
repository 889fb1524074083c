"""``POST /v1/chat/completions``: request checks, then SGLang's streaming or non-streaming answer.

Every check runs before the answer starts, so a request that fails one gets HTTP 400 whether it asked for a
stream or not (serving_chat.py kick-starts the stream to validate first). Stream order (``_generate_chat_stream``):
per choice a role chunk with its first output, then ``reasoning_content`` chunks (with ``--reasoning-parser``)
and ``content`` chunks, then one finish chunk per choice, ``sglext`` (0.5.23, when asked), the usage chunk
(when asked) and ``[DONE]``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import AsyncIterator

from mtptui.sim import oai
from mtptui.sim.choices import cancel_unfinished, merged, outputs, submit
from mtptui.sim.jsonbody import Json
from mtptui.sim.refuse import refusal
from mtptui.sim.request import Output, Request
from mtptui.sim.runtime import Runtime
from mtptui.sim.textgen import count_prompt_tokens
from mtptui.sim.validation import BadRequest, length_error, missing, number, sampling, validation_error, wrong_type

ROLES = ("system", "user", "assistant", "tool", "developer")
__all__ = ["BadRequest", "ChatParams", "outputs", "parse_chat", "split_text", "start_chat", "stream_chat",
           "complete_chat"]


@dataclass
class ChatParams:
    messages: list[Json]
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
    n: int = 1


def _messages(body: Json) -> list[Json]:
    if "messages" not in body:
        raise missing("messages", body)
    messages = body["messages"]
    if not isinstance(messages, list):
        raise wrong_type("messages", messages, "list")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise validation_error([{"type": "union_tag_invalid", "loc": ("body", "messages", index),
                                     "msg": "Input tag does not match any of the expected tags: "
                                            + ", ".join(repr(r) for r in ROLES), "input": message}])
    return messages


def _thinking(body: Json, rt: Runtime) -> bool:
    kwargs = body.get("chat_template_kwargs") or {}
    if body.get("reasoning_effort") == "none":
        return False
    return rt.thinking_model and kwargs.get("enable_thinking", True) is not False


def parse_chat(body: Json, rt: Runtime) -> ChatParams:
    """The request as SGLang's pydantic model reads it (the parts the simulator uses); BadRequest if invalid."""
    messages = _messages(body)
    max_new = number(body, "max_completion_tokens", int) or number(body, "max_tokens", int)
    options = body.get("stream_options") or {}
    surface = rt.boot.surface
    return ChatParams(
        messages=messages, model=str(body.get("model") or "default"), stream=bool(body.get("stream")),
        include_usage=bool(options.get("include_usage")) or rt.boot.settings.default_include_usage,
        continuous_usage=bool(options.get("continuous_usage_stats")),
        max_new_tokens=max_new, temperature=float(number(body, "temperature", float, 0.0)),
        ignore_eos=bool(body.get("ignore_eos")), thinking=_thinking(body, rt),
        separate_reasoning=bool(rt.boot.settings.reasoning_parser)
        and body.get("separate_reasoning", True) is not False,
        spec_details=bool(body.get("return_spec_tokens_details")) and surface.spec_in_sglext,
        prompt_tokens=count_prompt_tokens(messages), prompt_key=json.dumps(messages, sort_keys=True),
        n=max(1, number(body, "n", int, 1)),
    )


def check_chat(params: ChatParams, rt: Runtime) -> None:
    """``_validate_request``, the sampling parameters' check and the tokenizer's length checks, in that order."""
    surface, context_flag = rt.boot.surface, rt.boot.settings.context_length
    if not params.messages:
        raise BadRequest(surface.text("messages_empty"))
    if (refused := refusal(rt.boot.settings.env, params.messages)) is not None:
        raise refused
    if params.max_new_tokens and context_flag and params.max_new_tokens > context_flag:
        raise BadRequest(surface.text("max_tokens_too_large", params.max_new_tokens, context_flag))
    sampling(params.max_new_tokens, params.temperature, surface)
    problem = length_error(params.prompt_tokens, params.max_new_tokens, rt.boot.context_len, surface)
    if problem is not None:
        raise problem


def start_chat(params: ChatParams, rt: Runtime) -> list[Request]:
    """Check the request, then submit one request per choice."""
    check_chat(params, rt)
    return submit(rt, params.prompt_key, params.prompt_tokens, params.max_new_tokens, params.n,
                  temperature=params.temperature, thinking=params.thinking, ignore_eos=params.ignore_eos,
                  streaming=params.stream)


def split_text(output: Output, separate: bool) -> tuple[str, str]:
    """(reasoning, content) of one output; without a reasoning parser the think tags stay in the content."""
    if not separate:
        return "", "".join(p.text for p in output.pieces)
    reasoning = "".join(p.text for p in output.pieces if p.kind == "reasoning")
    return reasoning, "".join(p.text for p in output.pieces if p.kind == "content")


def _usage(params: ChatParams, rt: Runtime, requests: list[Request], outs: list[Output]) -> Json:
    """Usage over the choices: the prompt counted once, completion and reasoning tokens summed."""
    cached = requests[0].cached_tokens if rt.boot.settings.enable_cache_report else None
    reasoning = sum(o.reasoning_tokens for o in outs) if params.separate_reasoning else 0
    return oai.usage(rt.boot.surface, requests[0].prompt_tokens, sum(o.completion_tokens for o in outs),
                     reasoning, cached)


def _sglext(params: ChatParams, rt: Runtime, requests: list[Request]) -> Json | None:
    if not (params.spec_details and rt.boot.settings.speculative):
        return None
    details = [oai.spec_details(rt.boot.surface, r, rt.boot.decode.drafts_per_round) for r in requests]
    return {"spec_tokens_details": details[0] if len(details) == 1 else details}


def _text_chunks(params: ChatParams, rt: Runtime, request: Request, index: int, output: Output) -> list[str]:
    running = _usage(params, rt, [request], [output]) if params.continuous_usage else None
    reasoning, content = split_text(output, params.separate_reasoning)
    model, chunks = params.model, []
    if reasoning:
        chunks.append(oai.chunk(request.rid, model, [oai.stream_choice(oai.delta(reasoning=reasoning), index=index)],
                                running))
    if content:
        chunks.append(oai.chunk(request.rid, model, [oai.stream_choice(oai.delta(content=content), index=index)],
                                running))
    return chunks


async def stream_chat(params: ChatParams, requests: list[Request], rt: Runtime) -> AsyncIterator[str]:
    last: dict[int, Output] = {}
    try:
        async for index, output in merged(requests):
            if index not in last:
                yield oai.chunk(requests[index].rid, params.model,
                                [oai.stream_choice(oai.delta("assistant", ""), index=index)])
            last[index] = output
            for chunk in _text_chunks(params, rt, requests[index], index, output):
                yield chunk
        for index, output in last.items():
            yield oai.chunk(requests[index].rid, params.model, [
                oai.stream_choice(oai.delta(), output.finish_reason, output.matched_stop, index)])
        rid = requests[-1].rid
        if (sglext := _sglext(params, rt, requests)) is not None:
            yield oai.model_chunk(rid, params.model, sglext=sglext)
        if params.include_usage:
            yield oai.model_chunk(rid, params.model, _usage(params, rt, requests, [last[i] for i in sorted(last)]))
        yield "data: [DONE]\n\n"
    finally:
        cancel_unfinished(requests, rt)


async def complete_chat(params: ChatParams, requests: list[Request], rt: Runtime) -> Json:
    reasoning: dict[int, list[str]] = {i: [] for i in range(len(requests))}
    content: dict[int, list[str]] = {i: [] for i in range(len(requests))}
    last: dict[int, Output] = {}
    try:
        async for index, output in merged(requests):
            text = split_text(output, params.separate_reasoning)
            reasoning[index].append(text[0])
            content[index].append(text[1])
            last[index] = output
    finally:
        cancel_unfinished(requests, rt)
    choices = []
    for index in range(len(requests)):
        message = {"role": "assistant", "content": "".join(content[index]) or None,
                   "reasoning_content": "".join(reasoning[index]) or None, "tool_calls": None}
        choices.append(oai.chat_choice(index, message, last[index].finish_reason, last[index].matched_stop))
    outs = [last[i] for i in range(len(requests))]
    return oai.completion(requests[0].rid, params.model, choices, _usage(params, rt, requests, outs),
                          _sglext(params, rt, requests))
