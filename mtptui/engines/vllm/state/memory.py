"""Memory per rank from a vLLM startup: weights, KV cache (size and tokens), graphs.

The keys are those of SGLang's memory table (`parse-log --summary`), null where vLLM prints nothing of the
kind, plus `max_concurrency`. vLLM prints the KV cache's size and its tokens on two lines (the worker's and the
engine core's); both land on the rank of the process that printed them (`TP0` for an untagged one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mtptui.engines.vllm.logparse.events import VllmEvent
from mtptui.engines.sglang.state.memory import RankMemory as SglangRankMemory
from mtptui.engines.sglang.state.memory import rank_label


@dataclass(slots=True)
class RankMemory(SglangRankMemory):
    """SGLang's rank memory (the same keys in the summary) and the concurrency vLLM computes from it."""

    max_concurrency: float | None = None


class MemoryTable:
    """Rank label -> RankMemory, fed with the startup events that carry memory."""

    def __init__(self) -> None:
        self.ranks: dict[str, RankMemory] = {}

    def apply(self, event: VllmEvent) -> None:
        fields = event.fields
        if event.kind not in ("weight_load_end", "kv_cache", "graph_capture_end"):
            return
        rank = self.ranks.setdefault(rank_label(event.ranks), RankMemory())
        if event.kind == "weight_load_end" and fields["mem_usage_gb"] is not None:
            rank.weights_gb = fields["mem_usage_gb"]
        elif event.kind == "kv_cache":
            rank.kv_gb = fields["kv_size_gb"] if fields["kv_size_gb"] is not None else rank.kv_gb
            rank.kv_tokens = fields["tokens"] if fields["tokens"] is not None else rank.kv_tokens
            if fields["max_concurrency"] is not None:
                rank.max_concurrency = fields["max_concurrency"]
        elif event.kind == "graph_capture_end":
            rank.graphs_gb = fields["mem_usage_gb"]

    def kv_tokens(self) -> int | None:
        return next((rank.kv_tokens for rank in self.ranks.values() if rank.kv_tokens is not None), None)

    def max_concurrency(self) -> float | None:
        found = (rank.max_concurrency for rank in self.ranks.values() if rank.max_concurrency is not None)
        return next(found, None)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return {label: rank.to_dict() for label, rank in self.ranks.items()}
