"""The demo's background load: one chat request after another, so the log shows decode batches.

The mission's ~512-token red-black-tree prompt (prompt set `rbtree`) is sent with max_tokens 512, one request at
a time, to the model the server says it serves; connection errors (a restart) are retried. ``paused`` stops new
requests and drops the one in flight, e.g. while a benchmark runs.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from mtptui.ops.feed.items import FeedItem

if TYPE_CHECKING:
    import httpx

FALLBACK_PROMPT = "Write a red-black tree in Python with insert, delete and an invariant check."


def mission_prompt() -> str:
    """The mission's ~512-token red-black-tree prompt (prompt set `rbtree`), or a short stand-in."""
    try:
        from mtptui.bench.prompts import load_prompt_set

        return load_prompt_set("rbtree").prompts[0].text
    except Exception:  # no prompt file next to an installed wheel: the load only needs some prompt
        return FALLBACK_PROMPT


class DemoLoad:
    """A feed source that keeps one chat request after another going, so the log shows decode batches.

    It emits nothing; ``paused`` stops new requests and lets go of the one in flight (e.g. while a benchmark
    measures the server): its answer is streamed, and closing the stream is how a client aborts a request on
    SGLang and vLLM, so the measurement never queues behind the demo's own 512 tokens.
    """

    def __init__(self, api_url: str, *, max_tokens: int = 512, pause_s: float = 0.5, retry_s: float = 1.0) -> None:
        self.api_url = api_url.rstrip("/")
        self.max_tokens = max_tokens
        self.pause_s = pause_s
        self.retry_s = retry_s
        self.paused = False
        self.completed = 0
        self.abandoned = 0  # requests let go of when a pause came

    def body(self, prompt: str, model: str = "default") -> dict[str, Any]:
        return {"model": model, "messages": [{"role": "user", "content": prompt}],
                "max_tokens": self.max_tokens, "temperature": 0, "stream": True}

    async def __call__(self, emit: Callable[[FeedItem], Awaitable[None]]) -> None:
        import httpx

        async with httpx.AsyncClient(base_url=self.api_url, timeout=httpx.Timeout(120, connect=2)) as client:
            body = self.body(mission_prompt(), await self._wait_ready(client))
            while True:
                if self.paused:
                    await asyncio.sleep(self.retry_s)
                    continue
                try:
                    await self._one(client, body)
                    await asyncio.sleep(self.pause_s)
                except httpx.HTTPError:
                    await asyncio.sleep(self.retry_s)

    async def _one(self, client: httpx.AsyncClient, body: dict[str, Any]) -> None:
        """One streamed answer, read to its end, or left (the stream closed) as soon as a pause comes."""
        async with client.stream("POST", "/v1/chat/completions", json=body) as response:
            async for _ in response.aiter_lines():
                if self.paused:
                    self.abandoned += 1
                    return
            self.completed += response.status_code == 200

    async def _wait_ready(self, client: httpx.AsyncClient) -> str:
        """Until the API answers (/v1/models: unlike /health it does not log a 503 during the warm-up); the model
        it serves (vLLM answers another model name with 404; SGLang takes any)."""
        import httpx

        while True:
            try:
                reply = await client.get("/v1/models")
                if reply.status_code == 200:
                    return str((reply.json().get("data") or [{}])[0].get("id") or "default")
            except (httpx.HTTPError, ValueError, AttributeError, IndexError):
                pass
            await asyncio.sleep(self.retry_s)
