"""``POST /v1/completions``: a prompt (or a list of them) continued as plain text, ``n`` choices each.

No chat template and no reasoning parser. Streamed chunks are pydantic dumps (``usage`` null unless
``continuous_usage_stats``); the final usage chunk drops its null fields (``exclude_none``). Choice ``i`` of
prompt ``p`` has index ``p * n + i``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AsyncIterator

from mtptui.sim import oai
from mtptui.sim.choices import cancel_unfinished, merged, submit
from mtptui.sim.jsonbody import Json
from mtptui.sim.request import Output, Request
from mtptui.sim.runtime import Runtime
from mtptui.sim.validation import BadRequest, length_error, missing, number, validation_error

DEFAULT_MAX_TOKENS = 16  # CompletionRequest.max_tokens


@dataclass
class CompletionParams:
    prompts: list[str]
    model: str
    stream: bool
    include_usage: bool
    continuous_usage: bool
    max_new_tokens: int
    temperature: float
    ignore_eos: bool
    n: int


def _prompts(body: Json, rt: Runtime) -> list[str]:
    if "prompt" not in body:
        raise missing("prompt", body)
    prompt = body["prompt"]
    prompts = [prompt] if isinstance(prompt, str) else [p if isinstance(p, str) else repr(p) for p in prompt or []] \
        if isinstance(prompt, list) else None
    if prompts is None:
        raise validation_error([{"type": "string_type", "loc": ("body", "prompt", "str"),
                                 "msg": "Input should be a valid string", "input": prompt}])
    if not prompts or all(not p for p in prompts):
        raise BadRequest(rt.boot.surface.text("prompt_empty"))
    return prompts


def _max_tokens(body: Json, rt: Runtime) -> int:
    value = number(body, "max_tokens", int, DEFAULT_MAX_TOKENS)
    if value <= 0:
        text = rt.boot.surface.text("completion_max_tokens")
        raise validation_error([{"type": "value_error", "loc": ("body", "max_tokens"), "msg": f"Value error, {text}",
                                 "input": value, "ctx": {"error": f"ValueError('{text}')"}}])
    return value


def parse_completion(body: Json, rt: Runtime) -> CompletionParams:
    options = body.get("stream_options") or {}
    prompts = _prompts(body, rt)
    return CompletionParams(prompts=prompts, model=str(body.get("model") or "default"), stream=bool(body.get("stream")),
                            include_usage=bool(options.get("include_usage")) or rt.boot.settings.default_include_usage,
                            continuous_usage=bool(options.get("continuous_usage_stats")),
                            max_new_tokens=_max_tokens(body, rt),
                            temperature=float(number(body, "temperature", float, 0.0)),
                            ignore_eos=bool(body.get("ignore_eos")), n=max(1, number(body, "n", int, 1)))


def start_completion(params: CompletionParams, rt: Runtime) -> list[Request]:
    """Length checks for every prompt first, then ``n`` requests per prompt."""
    for prompt in params.prompts:
        problem = length_error(rt.text_tokens(prompt), params.max_new_tokens, rt.boot.context_len, rt.boot.surface)
        if problem is not None:
            raise problem
    requests: list[Request] = []
    for prompt in params.prompts:
        requests += submit(rt, f"completion:{prompt!r}", rt.text_tokens(prompt), params.max_new_tokens, params.n,
                           temperature=params.temperature, ignore_eos=params.ignore_eos, streaming=params.stream)
    return requests


def _text(output: Output) -> str:
    return "".join(p.text for p in output.pieces)


def _usage(params: CompletionParams, rt: Runtime, requests: list[Request], last: dict[int, Output]) -> Json:
    prompt = sum(r.prompt_tokens for i, r in enumerate(requests) if i % params.n == 0)
    return oai.usage(rt.boot.surface, prompt, sum(o.completion_tokens for o in last.values()))


def _choice(index: int, text: str, output: Output) -> Json:
    return {"index": index, "text": text, "logprobs": None, "finish_reason": output.finish_reason,
            "matched_stop": output.matched_stop}


async def stream_completion(params: CompletionParams, requests: list[Request], rt: Runtime) -> AsyncIterator[str]:
    last: dict[int, Output] = {}
    try:
        async for index, output in merged(requests):
            last[index] = output
            running = oai.usage(rt.boot.surface, requests[index].prompt_tokens, output.completion_tokens) \
                if params.continuous_usage else None
            body = oai.completion(requests[index].rid, params.model, [_choice(index, _text(output), output)], running,
                                  obj="text_completion")
            body.pop("metadata")
            yield f"data: {oai.dumps(body)}\n\n"
        if params.include_usage:
            usage = {k: v for k, v in _usage(params, rt, requests, last).items() if v is not None}  # exclude_none
            yield oai.model_chunk(requests[-1].rid, params.model, usage, obj="text_completion")
        yield "data: [DONE]\n\n"
    finally:
        cancel_unfinished(requests, rt)


async def complete_completion(params: CompletionParams, requests: list[Request], rt: Runtime) -> Json:
    texts: dict[int, list[str]] = {i: [] for i in range(len(requests))}
    last: dict[int, Output] = {}
    try:
        async for index, output in merged(requests):
            texts[index].append(_text(output))
            last[index] = output
    finally:
        cancel_unfinished(requests, rt)
    choices = [_choice(i, "".join(texts[i]), last[i]) for i in range(len(requests))]
    return oai.completion(requests[0].rid, params.model, choices, _usage(params, rt, requests, last),
                          obj="text_completion")
