"""SGLang's native ``POST /generate`` (the server's own warm-up, probes wanting meta_info, batches of texts).

No chat template and no reasoning parser; ``text`` is cumulative when streaming (the default without
``--incremental-streaming-output``). A list of texts (or of token lists) is a batch: the answer is a list,
and streamed events carry their ``index``. The final ``meta_info`` carries the per-request speculative
counters. The request is checked inside the generator, as SGLang does: a streamed request that fails gets
``200`` with one ``data: {"error": ...}`` event, a non-streamed one ``400 {"error": {"message": ...}}``.
"""

from __future__ import annotations

import time
from typing import AsyncIterator

from mtptui.sim import oai
from mtptui.sim.choices import cancel_unfinished, merged, submit
from mtptui.sim.jsonbody import Json
from mtptui.sim.request import Request
from mtptui.sim.runtime import Runtime
from mtptui.sim.validation import BadRequest, length_error, sampling

DEFAULT_MAX_NEW_TOKENS = 128


def _prompts(body: Json, rt: Runtime) -> tuple[list[tuple[str, int]], bool]:
    """(prompt key, prompt tokens) per prompt, and whether the request is a batch."""
    text, ids = body.get("text"), body.get("input_ids")
    if isinstance(text, str):
        return [(f"generate:{text!r}", rt.text_tokens(text))], False
    if isinstance(text, list) and text and all(isinstance(t, str) for t in text):
        return [(f"generate:{t!r}", rt.text_tokens(t)) for t in text], True
    if isinstance(ids, list) and ids and all(isinstance(i, list) for i in ids):
        return [(f"generate-ids:{i!r}", len(i)) for i in ids], True
    if isinstance(ids, list) and ids:
        return [(f"generate-ids:{ids!r}", len(ids))], False
    raise BadRequest(rt.boot.surface.text("generate_no_input"))


def start_generate(body: object, rt: Runtime) -> tuple[list[Request], bool]:
    """The requests of a /generate body and whether it is a batch; BadRequest as SGLang words it."""
    if not isinstance(body, dict):
        raise BadRequest(rt.boot.surface.text("generate_no_input"))
    prompts, batch = _prompts(body, rt)
    params = body.get("sampling_params") or {}
    max_new = params.get("max_new_tokens", DEFAULT_MAX_NEW_TOKENS)
    sampling(max_new, float(params.get("temperature") or 0.0), rt.boot.surface)
    for _, tokens in prompts:
        if (problem := length_error(tokens, max_new, rt.boot.context_len, rt.boot.surface)) is not None:
            raise problem
    requests: list[Request] = []
    for key, tokens in prompts:
        requests += submit(rt, key, tokens, max_new, int(params.get("n") or 1),
                           temperature=float(params.get("temperature") or 0.0),
                           ignore_eos=bool(params.get("ignore_eos")), streaming=bool(body.get("stream")))
    return requests, batch or len(requests) > 1


def meta_info(request: Request, rt: Runtime, finish_reason: str | None) -> Json:
    finish: Json | None = None
    if finish_reason == "length":
        finish = {"type": "length", "length": request.completion_tokens}
    elif finish_reason == "stop":
        finish = {"type": "stop", "matched": request.matched_stop}
    elif finish_reason == "abort":
        finish = {"type": "abort", "message": "Abort before the request finished."}
    info: Json = {"id": request.rid, "finish_reason": finish, "prompt_tokens": request.prompt_tokens,
                  "weight_version": "default", "completion_tokens": request.completion_tokens,
                  "cached_tokens": request.cached_tokens}
    if finish is not None:
        info["e2e_latency"] = time.monotonic() - request.arrival
        if rt.boot.settings.speculative and request.verify_ct:
            details = oai.spec_details(rt.boot.surface, request, rt.boot.decode.drafts_per_round)
            info.update({k: details[k] for k in ("spec_accept_rate", "spec_accept_length", "spec_num_correct_drafts",
                                                 "spec_num_proposed_drafts", "spec_verify_ct") if k in details})
            info.setdefault("spec_verify_ct", request.verify_ct)
            info.setdefault("spec_accept_length", request.completion_tokens / request.verify_ct)
    return info


async def generate_events(requests: list[Request], rt: Runtime, batch: bool) -> AsyncIterator[tuple[int, Json]]:
    """(choice index, event) as the outputs arrive; a batch's events carry their ``index``."""
    texts = [""] * len(requests)
    try:
        async for index, output in merged(requests):
            texts[index] += "".join(p.text for p in output.pieces)
            event: Json = {"text": texts[index], "output_ids": [],
                           "meta_info": meta_info(requests[index], rt, output.finish_reason)}
            if batch:
                event["index"] = index
            yield index, event
    finally:
        cancel_unfinished(requests, rt)


async def stream_generate(requests: list[Request], rt: Runtime, batch: bool) -> AsyncIterator[str]:
    async for _, event in generate_events(requests, rt, batch):
        yield f"data: {oai.dumps(event)}\n\n"
    yield "data: [DONE]\n\n"


async def complete_generate(requests: list[Request], rt: Runtime, batch: bool) -> Json | list[Json]:
    """The final event of each request: one object, or a list for a batch."""
    last: dict[int, Json] = {}
    async for index, event in generate_events(requests, rt, batch):
        event.pop("index", None)
        last[index] = event
    return [last[i] for i in range(len(requests))] if batch else last[0]
