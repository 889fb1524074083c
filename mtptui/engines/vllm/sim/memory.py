"""GPU memory of the simulated vLLM, following vLLM's own arithmetic (a stand-in for the CUDA allocator).

vLLM requests `gpu_memory_utilization` of each GPU's memory; the profile run measures what is not KV cache
(weights, the peak activations of a `max_num_batched_tokens` forward, CUDA graphs, NCCL buffers), and what is
left of the request is the KV cache, cut into blocks of `block_size` tokens on the tightest rank. A token costs
K and V on every full-attention layer of this rank's share of the KV heads; a hybrid model's requests each hold
one mamba state in the same pool (so one request of `max_model_len` needs its tokens and one state). A start
fails as vLLM's does: the weights do not fit (CUDA out of memory), nothing is left for the cache, or one request
of `max_model_len` would not fit. Sizes are GiB.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mtptui.sim.memory import CONTEXT_GB, CONTEXT_STEP_GB, DRIVER_GB, GiB, MemoryInputs, RankMemory, \
    kv_bytes_per_token, mamba_slot_bytes
from mtptui.sim.model import ModelSpec

ACTIVATION_BASE_GB = 0.35  # the profile run's fixed share (sampler, buffers)
ACTIVATION_PER_TOKEN_GB = 0.00028  # per batched token of the profile forward
GRAPHS_GB = 0.31  # CUDA graph pool (vLLM's estimate is applied before the KV cache is sized)
KV_BYTES = {"fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1, "nvfp4": 1}


@dataclass(frozen=True)
class MemoryAsk:
    """The launch values that size memory."""

    gpu_mem_gb: float
    tp: int
    utilization: float
    max_model_len: int
    max_num_seqs: int
    batched_tokens: int
    block_size: int
    kv_bytes: int
    draft_weights_gb: float
    graphs: bool
    draft_layers: int = 0  # attention layers of an MTP or EAGLE head: their KV shares the pool


@dataclass
class VllmMemory:
    """Per-rank memory after each phase, the KV cache in GiB, tokens and blocks, or why the start fails."""

    weights_gb: float
    ranks: list[RankMemory] = field(default_factory=list)
    kv_gb: float = 0.0
    blocks: int = 0
    tokens: int = 0
    needed_tokens: int = 0  # one request of max_model_len, in whole blocks
    needed_gb: float = 0.0
    graphs_gb: float = 0.0
    failure: str | None = None  # "weights" | "no_memory" | "too_long"

    @property
    def max_concurrency(self) -> float:
        return self.tokens / max(self.needed_tokens, 1)


def token_bytes(spec: ModelSpec, ask: MemoryAsk) -> float:
    """K and V of one token on one rank, over the full-attention layers (and a draft head's)."""
    inputs = _inputs(ask)
    return 2 * kv_bytes_per_token(spec, inputs, spec.full_attn_layers + ask.draft_layers)


def _inputs(ask: MemoryAsk) -> MemoryInputs:
    return MemoryInputs(ask.gpu_mem_gb, ask.tp, ask.utilization, ask.max_model_len, ask.max_num_seqs, 0.0, 0, (),
                        ask.kv_bytes, 2)


def mamba_state_gb(spec: ModelSpec, ask: MemoryAsk) -> float:
    """One request's mamba state on one rank (0 for a model without linear-attention layers)."""
    if not spec.hybrid:
        return 0.0
    conv, ssm = mamba_slot_bytes(spec, _inputs(ask))
    return (conv + ssm) / GiB


def plan(spec: ModelSpec, ask: MemoryAsk) -> VllmMemory:
    """Walk vLLM's start on every rank: weights, the profile, the KV cache."""
    weights = spec.weights_gb / ask.tp + ask.draft_weights_gb
    memory = VllmMemory(weights_gb=weights)
    total = ask.gpu_mem_gb - DRIVER_GB
    for rank in range(ask.tp):
        baseline = CONTEXT_GB + CONTEXT_STEP_GB * rank
        memory.ranks.append(RankMemory(rank, baseline, total - baseline, total - baseline - weights))
    if any(r.after_weights < 0.3 for r in memory.ranks):
        memory.failure = "weights"
        return memory
    memory.graphs_gb = GRAPHS_GB if ask.graphs else 0.0
    activation = ACTIVATION_BASE_GB + ACTIVATION_PER_TOKEN_GB * ask.batched_tokens
    requested = ask.utilization * total
    tightest = max(r.baseline_gb for r in memory.ranks)
    memory.kv_gb = requested - tightest - weights - activation - memory.graphs_gb
    _size_cache(memory, spec, ask)
    for r in memory.ranks:
        r.final = r.after_weights - max(memory.kv_gb, 0.0) - memory.graphs_gb
    return memory


def _size_cache(memory: VllmMemory, spec: ModelSpec, ask: MemoryAsk) -> None:
    per_token = token_bytes(spec, ask)
    memory.needed_tokens = -(-ask.max_model_len // ask.block_size) * ask.block_size
    memory.needed_gb = memory.needed_tokens * per_token / GiB + mamba_state_gb(spec, ask)
    if memory.kv_gb <= 0:
        memory.failure = "no_memory"
        return
    memory.blocks = int(memory.kv_gb * GiB // (per_token * ask.block_size))
    memory.tokens = memory.blocks * ask.block_size
    if memory.needed_gb > memory.kv_gb:
        memory.failure = "too_long"


def estimated_max_len(memory: VllmMemory, block_size: int) -> int:
    """`estimate_max_model_len`: the longest request the cache holds, in whole blocks."""
    return memory.blocks * block_size
