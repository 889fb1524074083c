"""GPU memory per rank, from the weight, pool and graph lines each rank logs during startup."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from mtptui.engines.sglang.logparse import Event

RANK_ORDER = {"DP": 0, "PP": 1, "ATTN_CP": 2, "MOE_DP": 3, "TP": 4, "EP": 5}


def rank_label(ranks: dict[str, int]) -> str:
    """`DP0 TP0 EP0` in SGLang's current tag order whatever order the line used; `TP0` for an untagged line
    (TP=1 prints no tag: its only rank is TP0)."""
    if not ranks:
        return "TP0"
    names = sorted(ranks, key=lambda name: RANK_ORDER.get(name, len(RANK_ORDER)))
    return " ".join(f"{name}{ranks[name]}" for name in names)


def _add(total: float | None, value: float | None) -> float | None:
    if value is None:
        return total
    return round((total or 0.0) + value, 4)


@dataclass(slots=True)
class RankMemory:
    """One rank's memory split in GB. The second weight load / KV pool of a rank is the MTP or draft model's."""

    model_type: str | None = None
    weights_gb: float | None = None
    draft_model_type: str | None = None
    draft_weights_gb: float | None = None
    kv_tokens: int | None = None
    kv_gb: float | None = None
    draft_kv_gb: float | None = None
    mamba_gb: float | None = None
    graphs_gb: float | None = None
    avail_gb: float | None = None
    _avail_before_load: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["_avail_before_load"]
        return out

    def weight_load_end(self, fields: dict[str, Any]) -> None:
        usage, model = fields["mem_usage_gb"], fields["model_type"]
        if usage is None and self._avail_before_load is not None and fields["avail_mem_gb"] is not None:
            usage = round(self._avail_before_load - fields["avail_mem_gb"], 4)  # ≤0.3.x printed no mem usage
        if usage is None and model is None:
            return  # the deferred "Committed real weights" notice carries no split
        if self.weights_gb is None and self.model_type is None:
            self.weights_gb, self.model_type = usage, model
        else:
            self.draft_weights_gb, self.draft_model_type = _add(self.draft_weights_gb, usage), model

    def kv_cache(self, fields: dict[str, Any]) -> None:
        size = fields["kv_size_gb"]
        if size is None and fields["k_size_gb"] is not None and fields["v_size_gb"] is not None:
            size = round(fields["k_size_gb"] + fields["v_size_gb"], 4)
        if self.kv_gb is None and self.kv_tokens is None:
            self.kv_gb, self.kv_tokens = size, fields["tokens"]
        else:
            self.draft_kv_gb = _add(self.draft_kv_gb, size)


class MemoryTable:
    """Rank label → RankMemory, fed with startup events."""

    def __init__(self) -> None:
        self.ranks: dict[str, RankMemory] = {}

    def apply(self, event: Event) -> None:
        kind, fields = event.kind, event.fields
        if kind in ("shard_progress", "graph_capture_progress"):
            return  # tqdm bars: rank 0 only, no rank tag
        rank = self.ranks.setdefault(rank_label(event.ranks), RankMemory())
        avail = fields.get("available_gpu_mem_gb") if kind == "capacity" else fields.get("avail_mem_gb")
        if kind == "weight_load_begin":
            rank._avail_before_load = avail
        elif kind == "weight_load_end":
            rank.weight_load_end(fields)
        elif kind == "kv_cache":
            rank.kv_cache(fields)
        elif kind == "mamba_cache":
            rank.mamba_gb = _add(_add(rank.mamba_gb, fields["conv_state_gb"]), fields["ssm_state_gb"])
        elif kind == "graph_capture_end":
            rank.graphs_gb = _add(rank.graphs_gb, fields["mem_usage_gb"])
        if avail is not None:
            rank.avail_gb = avail

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return {label: rank.to_dict() for label, rank in self.ranks.items()}
