"""The greedy canary: fixed temperature-0 prompts whose outputs must not change with the speculative settings.

SGLang's verification keeps the target model's own argmax, so greedy output is the same with and without
speculation in principle; real kernels and batch shapes can still change it (public A/B runs have seen it:
``../shared/reference/speculative-performance.md``). Each arm's outputs are hashed and compared with the
reference arm's (the base arm); a difference is that arm's correctness failure, named by the prompt and the
character where the outputs part.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from mtptui.bench.prompts import Prompt
from mtptui.ops.tune.arms import CanaryVerdict

PROMPTS = (
    Prompt("canary-sort", "Write a Python function that merges two sorted lists into one sorted list."),
    Prompt("canary-sql", "Explain what a LEFT JOIN returns, with a two-table example."),
    Prompt("canary-regex", "Give a regular expression that matches an IPv4 address and explain each part."),
)
MAX_TOKENS = 48


@dataclass(frozen=True)
class CanaryOutputs:
    """The greedy outputs of the canary prompts (reasoning + content), in order; None where a request failed."""

    texts: tuple[str | None, ...]

    @property
    def digest(self) -> str:
        blob = "\x00".join(text if text is not None else "\x01failed" for text in self.texts)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @property
    def failed(self) -> str | None:
        return next((PROMPTS[i].name for i, text in enumerate(self.texts) if text is None), None)


async def run_canary(url: str, max_tokens: int = MAX_TOKENS, model: str | None = None) -> CanaryOutputs:
    """Send the canary prompts one at a time (batch shapes change numerics: always alone), greedy."""
    from mtptui.bench.client import ChatClient
    from mtptui.bench.payload import Sampling, build_payload
    from mtptui.bench.server import probe_server

    texts: list[str | None] = []
    async with ChatClient(url, concurrency=1, timeout=120.0, deadline=300.0) as client:
        served = model or (await probe_server(client)).request_model
        for prompt in PROMPTS:
            payload = build_payload(prompt, model=served, max_tokens=max_tokens, sampling=Sampling(temperature=0.0))
            record = await client.stream(payload)
            texts.append("".join(c.reasoning + c.content for c in record.chunks) if record.ok else None)
    return CanaryOutputs(tuple(texts))


def judge(outputs: CanaryOutputs, reference: CanaryOutputs | None) -> tuple[CanaryVerdict, str | None]:
    """("pass" | "fail" | "skipped", what differs): the arm's outputs against the reference arm's."""
    if outputs.failed:
        return "skipped", f"the canary prompt {outputs.failed} failed"
    if reference is None or reference.failed:
        return "pass", "the reference: the other arms' outputs are compared with these"
    for prompt, text, expected in zip(PROMPTS, outputs.texts, reference.texts):
        if text != expected:
            assert text is not None and expected is not None  # a missing output is ``failed``, judged above
            where = next((i for i, (a, b) in enumerate(zip(text, expected)) if a != b), min(len(text), len(expected)))
            return "fail", f"greedy output of {prompt.name} differs from the reference arm's from character {where}"
    return "pass", None
