"""`POST /v1/chat/completions` and `POST /v1/completions` as vLLM 0.32.0 answers them, streamed or not.

Checks first (vllm's texts, validation.py), then one engine request per choice (``n``) and prompt. Each engine
output becomes one streamed chunk per choice (several tokens when a speculative step accepted drafts), the
chunk with the last tokens carrying `finish_reason`; shapes in oai.py. A thinking model writes `<think>...
</think>` into the content unless `--reasoning-parser` is set, which moves it into `reasoning`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, AsyncIterator

from mtptui.engines.vllm.sim import oai
from mtptui.engines.vllm.sim.runtime import VllmRuntime
from mtptui.engines.vllm.sim.validation import Refused, check_model, lengths, missing, number, sampling, \
    validation_error, vllm_error, whole
from mtptui.sim.choices import cancel_unfinished, merged, submit
from mtptui.sim.request import Output, Request
from mtptui.sim.textgen import count_prompt_tokens, count_text_tokens

COMPLETION_MAX_TOKENS = 16  # CompletionRequest.max_tokens
ROLES = ("system", "user", "assistant", "tool", "developer")


@dataclass
class Ask:
    """One generation request as vLLM's protocol model reads it (the parts the simulator uses)."""

    chat: bool
    prompts: list[tuple[str, int]]  # (prompt key, prompt tokens)
    model: str
    stream: bool
    include_usage: bool
    continuous_usage: bool
    max_tokens: int | None
    temperature: float
    ignore_eos: bool
    n: int
    thinking: bool = False


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    if "messages" not in body:
        raise missing("messages", body)
    messages = body["messages"]
    if not isinstance(messages, list) or not all(isinstance(m, dict) and m.get("role") in ROLES for m in messages):
        raise validation_error([{"type": "list_type", "loc": ("body", "messages"),
                                 "msg": "Input should be a valid list", "input": messages}])
    return messages


def _prompts(body: dict[str, Any]) -> list[str]:
    prompt = body.get("prompt")
    prompts = [prompt] if isinstance(prompt, str) else prompt if isinstance(prompt, list) else []
    texts = [p for p in prompts if isinstance(p, str)]
    if not texts or all(not t for t in texts):
        raise vllm_error("Either prompt or prompt_embeds must be provided and non-empty.", "prompt", has_value=False)
    return texts


def _thinking(body: dict[str, Any], rt: VllmRuntime) -> bool:
    kwargs = body.get("chat_template_kwargs") or {}
    return rt.thinking_model and isinstance(kwargs, dict) and kwargs.get("enable_thinking", True) is not False


def parse(body: dict[str, Any], rt: VllmRuntime, chat: bool) -> Ask:
    """The request, checked as vLLM checks it; Refused with vLLM's body otherwise."""
    served = rt.boot.settings.served_model_name
    if chat:
        messages = _messages(body)
        prompts = [(json.dumps(messages, sort_keys=True), count_prompt_tokens(messages))]
    else:
        prompts = [(f"completion:{p!r}", count_text_tokens(p)) for p in _prompts(body)]
    check_model(body, served)
    given = body.get("stream_options")
    options: dict[str, Any] = given if isinstance(given, dict) else {}
    max_tokens = whole(body, "max_completion_tokens") or whole(body, "max_tokens")
    ask = Ask(chat, prompts, str(body.get("model") or served), bool(body.get("stream")),
              bool(options.get("include_usage")), bool(options.get("continuous_usage_stats")),
              max_tokens if max_tokens is not None or chat else COMPLETION_MAX_TOKENS,
              float(number(body, "temperature", 1.0) or 0.0), bool(body.get("ignore_eos")),
              max(1, whole(body, "n") or 1), chat and _thinking(body, rt))
    sampling(ask.temperature)
    return ask


def start(ask: Ask, rt: VllmRuntime) -> list[Request]:
    """Length checks for every prompt, then ``n`` engine requests per prompt."""
    budgets = [lengths(tokens, ask.max_tokens, rt.boot.settings.max_model_len) for _, tokens in ask.prompts]
    requests: list[Request] = []
    for (key, tokens), budget in zip(ask.prompts, budgets):
        requests += submit(rt, key, tokens, budget, ask.n, temperature=ask.temperature, thinking=ask.thinking,
                           ignore_eos=ask.ignore_eos, streaming=ask.stream)
    return requests


def split(output: Output, separate: bool) -> tuple[str, str]:
    """(reasoning, content) of one output."""
    if not separate:
        return "", "".join(p.text for p in output.pieces)
    reasoning = "".join(p.text for p in output.pieces if p.kind == "reasoning")
    return reasoning, "".join(p.text for p in output.pieces if p.kind == "content")


def _delta(output: Output, separate: bool) -> dict[str, Any]:
    reasoning, content = split(output, separate)
    return {"reasoning": reasoning} if reasoning and not content else {"content": content}


async def stream(ask: Ask, requests: list[Request], rt: VllmRuntime, rid: str) -> AsyncIterator[str]:
    obj = oai.CHUNK if ask.chat else oai.COMPLETION
    separate, seen, tokens = bool(rt.boot.settings.reasoning_parser), set(), {}
    prompt = sum(tokens for _, tokens in ask.prompts)
    try:
        async for index, output in merged(requests):
            running = oai.running_usage(prompt, output.completion_tokens) if ask.continuous_usage else None
            if ask.chat and index not in seen:
                seen.add(index)
                yield oai.sse(oai.role_chunk(rid, ask.model, index, oai.running_usage(prompt, 0) if running else None))
            tokens[index] = output.completion_tokens
            finish = output.finish_reason if output.finish_reason != "abort" else None
            choice = oai.delta_choice(index, _delta(output, separate), finish) if ask.chat \
                else oai.stream_text_choice(index, "".join(p.text for p in output.pieces), finish)
            mark = rt.fingerprint if finish is not None and not ask.include_usage else None
            yield oai.sse(oai.chunk(rid, obj, ask.model, choice, running, mark))
        if ask.include_usage:
            usage = oai.usage(prompt, sum(tokens.values()), full=False)
            yield oai.sse(oai.usage_chunk(rid, obj, ask.model, usage, rt.fingerprint))
        yield "data: [DONE]\n\n"
    finally:
        cancel_unfinished(requests, rt)


async def complete(ask: Ask, requests: list[Request], rt: VllmRuntime, rid: str) -> dict[str, Any]:
    texts: dict[int, list[Output]] = {i: [] for i in range(len(requests))}
    try:
        async for index, output in merged(requests):
            texts[index].append(output)
    finally:
        cancel_unfinished(requests, rt)
    separate = bool(rt.boot.settings.reasoning_parser)
    choices, completion = [], 0
    for index, outputs in texts.items():
        parts = [split(o, separate) for o in outputs]
        reasoning, content = "".join(p[0] for p in parts), "".join(p[1] for p in parts)
        finish = outputs[-1].finish_reason if outputs else None
        completion += outputs[-1].completion_tokens if outputs else 0
        choices.append(oai.chat_choice(index, oai.chat_message(content, reasoning or None), finish) if ask.chat
                       else oai.text_choice(index, content, finish))
    usage = oai.usage(sum(tokens for _, tokens in ask.prompts), completion)
    build = oai.chat_completion if ask.chat else oai.text_completion
    return build(rid, ask.model, choices, usage, rt.fingerprint)


__all__ = ["Ask", "Refused", "complete", "parse", "start", "stream"]
