"""Token deltas per chunk from the server's cumulative usage, with a chunk-counting fallback.

Under MTP one chunk holds every token accepted in a verify step, so a chunk is not a token: the server's
cumulative `usage.completion_tokens` (sent on every chunk with `continuous_usage_stats`) gives the exact
number of tokens each chunk brought. A server that sends no usage leaves only the chunks to count (one token
per non-empty chunk), which is approximate and flagged as such.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.bench.chunks import Chunk


@dataclass(slots=True)
class Delta:
    """Tokens one chunk brought: reasoning and content (visible answer)."""

    reasoning: int = 0
    content: int = 0

    @property
    def total(self) -> int:
        return self.reasoning + self.content


class TokenCounter:
    """Turns a request's chunks, in order, into per-chunk token deltas."""

    def __init__(self) -> None:
        self.completion = 0
        self.reasoning = 0
        self.approximate = False

    def step(self, chunk: Chunk) -> Delta:
        if chunk.completion_tokens is None:
            return self._count_chunk(chunk)
        total = max(0, chunk.completion_tokens - self.completion)
        if chunk.reasoning_tokens is not None:
            reasoning = min(total, max(0, chunk.reasoning_tokens - self.reasoning))
        else:
            reasoning = total if chunk.reasoning and not chunk.content else 0
        return self._book(Delta(reasoning, total - reasoning))

    def _count_chunk(self, chunk: Chunk) -> Delta:
        """No usage on this chunk: one token per non-empty chunk (approximate)."""
        if not chunk.has_text:
            return Delta()
        self.approximate = True
        return self._book(Delta(0, 1) if chunk.content else Delta(1, 0))

    def _book(self, delta: Delta) -> Delta:
        self.completion += delta.total
        self.reasoning += delta.reasoning
        return delta
