"""SGLang's native ``POST /generate`` (used by the server's own warm-up, and by probes wanting meta_info).

No chat template and no reasoning parser; ``text`` is cumulative when streaming (the default without
``--incremental-streaming-output``). The final ``meta_info`` carries the per-request speculative counters.
"""

from __future__ import annotations

import time
from typing import AsyncIterator

from mtptui.sim import oai
from mtptui.sim.chat import BadRequest, outputs
from mtptui.sim.request import Request
from mtptui.sim.runtime import Runtime

DEFAULT_MAX_NEW_TOKENS = 128


def start_generate(body: object, rt: Runtime) -> tuple[Request, bool]:
    if not isinstance(body, dict) or not isinstance(body.get("text", body.get("input_ids")), (str, list)):
        raise BadRequest("Either text or input_ids should be provided.")
    prompt = body.get("text")
    prompt_tokens = rt.text_tokens(prompt) if isinstance(prompt, str) else len(body["input_ids"])
    params = body.get("sampling_params") or {}
    max_new = params.get("max_new_tokens", DEFAULT_MAX_NEW_TOKENS)
    request = rt.new_request(f"generate:{prompt!r}", prompt_tokens, max_new,
                             temperature=float(params.get("temperature") or 0.0),
                             ignore_eos=bool(params.get("ignore_eos")))
    rt.engine.submit(request)
    return request, bool(body.get("stream"))


def meta_info(request: Request, rt: Runtime, finish_reason: str | None) -> dict:
    finish = None
    if finish_reason == "length":
        finish = {"type": "length", "length": request.completion_tokens}
    elif finish_reason == "stop":
        finish = {"type": "stop", "matched": request.matched_stop}
    elif finish_reason == "abort":
        finish = {"type": "abort", "message": "Abort before the request finished."}
    info = {"id": request.rid, "finish_reason": finish, "prompt_tokens": request.prompt_tokens,
            "weight_version": "default", "completion_tokens": request.completion_tokens,
            "cached_tokens": request.cached_tokens}
    if finish is not None:
        info["e2e_latency"] = time.monotonic() - request.arrival
        if rt.boot.settings.speculative and request.verify_ct:
            details = oai.spec_details(request, rt.boot.decode.drafts_per_round)
            info.update({k: v for k, v in details.items() if k != "spec_correct_drafts_histogram"})
    return info


async def generate_events(request: Request, rt: Runtime) -> AsyncIterator[dict]:
    text = ""
    try:
        async for output in outputs(request):
            text += "".join(p.text for p in output.pieces)
            yield {"text": text, "output_ids": [], "meta_info": meta_info(request, rt, output.finish_reason)}
    finally:
        if not request.finished:
            rt.engine.cancel(request)


async def stream_generate(request: Request, rt: Runtime) -> AsyncIterator[str]:
    async for event in generate_events(request, rt):
        yield f"data: {oai.dumps(event)}\n\n"
    yield "data: [DONE]\n\n"


async def complete_generate(request: Request, rt: Runtime) -> dict:
    last: dict = {}
    async for event in generate_events(request, rt):
        last = event
    return last
