"""GPU memory model of the simulated server: what each tensor-parallel rank holds after each startup phase.

A stand-in for CUDA's allocator (there is no GPU here), following SGLang's arithmetic: the static budget is
``mem_fraction_static`` of the memory free after the CUDA context; what the weights leave of it is split
between the request table (context length x requests), the mamba state pool (``mamba_full_memory_ratio``) and
the KV pool, whose size in tokens follows from the bytes one token costs on one rank. All sizes are GiB.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mtptui.sim.model import ModelSpec

GiB = float(1 << 30)
DRIVER_GB = 0.46  # what the driver keeps back: a "48 GB" card shows 47.54 GB to CUDA
CONTEXT_GB = 0.52  # CUDA context + NCCL buffers on rank 0 ("Init torch distributed ends. mem usage=...")
CONTEXT_STEP_GB = 0.07  # ranks differ a little, as in real logs
SLACK_GB = 0.3  # an allocation fails when less than this would remain


@dataclass(frozen=True)
class MemoryInputs:
    """The launch values that size memory (already resolved: no None)."""

    gpu_mem_gb: float
    tp_size: int
    mem_fraction_static: float
    context_len: int
    max_num_reqs: int
    mamba_ratio: float
    draft_tokens: int  # 0 without speculative decoding
    capture_bs: tuple[int, ...]  # empty when CUDA graphs are disabled
    kv_bytes: int = 2
    mamba_ssm_bytes: int = 2


@dataclass(frozen=True)
class MambaPool:
    size: int
    conv_gb: float
    ssm_gb: float
    inter_ssm_gb: float
    inter_conv_gb: float

    @property
    def total_gb(self) -> float:
        return self.conv_gb + self.ssm_gb + self.inter_ssm_gb + self.inter_conv_gb


@dataclass
class RankMemory:
    """Free memory on one rank after each phase (None: the phase did not happen)."""

    rank: int
    baseline_gb: float
    begin: float
    after_weights: float
    after_pools: float | None = None
    target_graph_gb: float = 0.0
    after_capture: float | None = None
    after_draft_weights: float | None = None
    after_draft_pool: float | None = None
    draft_graph_gb: float = 0.0
    final: float | None = None


@dataclass
class MemoryPlan:
    """Per-rank memory and pool sizes, or the phase where memory ran out (``failure``)."""

    weights_gb: float
    draft_weights_gb: float
    ranks: list[RankMemory] = field(default_factory=list)
    tokens: int = 0
    k_gb: float = 0.0
    draft_k_gb: float = 0.0
    mamba: MambaPool | None = None
    failure: str | None = None  # "weights" | "pool" | "capture" | "draft"


def kv_bytes_per_token(spec: ModelSpec, inputs: MemoryInputs, layers: int) -> float:
    """Bytes one token's K (or V) takes on one rank across ``layers`` attention layers."""
    heads = max(1, spec.kv_heads // inputs.tp_size)
    return layers * heads * spec.head_dim * inputs.kv_bytes


def mamba_slot_bytes(spec: ModelSpec, inputs: MemoryInputs) -> tuple[float, float]:
    """(conv, ssm) bytes of one request's mamba state on one rank."""
    conv_dim = (2 * spec.linear_k_heads + spec.linear_v_heads) * spec.linear_head_dim // inputs.tp_size
    conv = conv_dim * (spec.conv_kernel - 1) * 2 * spec.linear_layers
    ssm_heads = spec.linear_v_heads // inputs.tp_size
    ssm = ssm_heads * spec.linear_head_dim * spec.linear_head_dim * inputs.mamba_ssm_bytes * spec.linear_layers
    return conv, ssm


def auto_mem_fraction(gpu_mem_gb: float, tp_size: int, chunked_prefill: int, graph_max_bs: int,
                      speculative: bool) -> float:
    """SGLang's default: what is left after a reserve for activations, graphs, NCCL and the draft model."""
    gpu_mb = gpu_mem_gb * 1024
    reserved = 512 + 1.5 * max(chunked_prefill, 2048) + 2 * graph_max_bs + tp_size / 8 * 1024
    if speculative:
        reserved += 2048
    if gpu_mem_gb > 60:
        reserved = max(reserved, 10 * 1024)
    return round((gpu_mb - reserved) / gpu_mb, 3)


def _mamba_pool(spec: ModelSpec, inputs: MemoryInputs, rest: float) -> MambaPool:
    conv, ssm = mamba_slot_bytes(spec, inputs)
    budget = rest * inputs.mamba_ratio / (1 + inputs.mamba_ratio) * GiB
    size = max(1, int(budget // ((conv + ssm) * (1 + inputs.draft_tokens))))
    inter = size * inputs.draft_tokens
    return MambaPool(size, size * conv / GiB, size * ssm / GiB, inter * ssm / GiB, inter * conv / GiB)


def _graph_gb(inputs: MemoryInputs, spec: ModelSpec, tokens_per_req: int) -> float:
    if not inputs.capture_bs:
        return 0.0
    per_bs = 0.0045 * (1 + 0.15 * (tokens_per_req - 1))
    return 0.02 + per_bs * len(inputs.capture_bs) + (0.075 if spec.hybrid else 0.0)


def _size_pools(plan: MemoryPlan, spec: ModelSpec, inputs: MemoryInputs) -> float:
    """Fill tokens/mamba from the tightest rank; returns GiB each rank gives to its target pools."""
    rest = min(r.after_weights - r.begin * (1 - inputs.mem_fraction_static) for r in plan.ranks)
    rest -= (inputs.max_num_reqs + 1) * inputs.context_len * 4 / GiB  # req_to_token table
    if rest <= 0:
        plan.failure = "pool"
        return 0.0
    used = (inputs.max_num_reqs + 1) * inputs.context_len * 4 / GiB
    if spec.hybrid:
        plan.mamba = _mamba_pool(spec, inputs, rest)
        rest -= plan.mamba.total_gb
        used += plan.mamba.total_gb
    draft_layers = spec.mtp_layers if inputs.draft_tokens else 0
    cell = 2 * kv_bytes_per_token(spec, inputs, spec.full_attn_layers + draft_layers)
    plan.tokens = int(rest * GiB // cell)
    plan.k_gb = plan.tokens * kv_bytes_per_token(spec, inputs, spec.full_attn_layers) / GiB
    plan.draft_k_gb = plan.tokens * kv_bytes_per_token(spec, inputs, draft_layers) / GiB
    return used + 2 * plan.k_gb


def plan_memory(spec: ModelSpec, inputs: MemoryInputs) -> MemoryPlan:
    """Walk the startup phases on every rank; stop at the first phase that does not fit."""
    weights = spec.weights_gb / inputs.tp_size
    draft = spec.mtp_weights_gb / inputs.tp_size if inputs.draft_tokens else 0.0
    plan = MemoryPlan(weights_gb=weights, draft_weights_gb=draft)
    for rank in range(inputs.tp_size):
        baseline = CONTEXT_GB + CONTEXT_STEP_GB * rank
        begin = inputs.gpu_mem_gb - DRIVER_GB - baseline
        plan.ranks.append(RankMemory(rank, baseline, begin, begin - weights))
    if any(r.after_weights < SLACK_GB for r in plan.ranks):
        plan.failure = "weights"
        return plan
    pools = _size_pools(plan, spec, inputs)
    if plan.failure:
        return plan
    _walk_after_pools(plan, spec, inputs, pools)
    return plan


def _walk_after_pools(plan: MemoryPlan, spec: ModelSpec, inputs: MemoryInputs, pools: float) -> None:
    target_graph = _graph_gb(inputs, spec, inputs.draft_tokens or 1)
    draft_graph = _graph_gb(inputs, spec, 1) * 0.5 if inputs.draft_tokens else 0.0
    for r in plan.ranks:
        r.after_pools = r.after_weights - pools
        r.target_graph_gb, r.after_capture = target_graph, r.after_pools - target_graph
        r.final = r.after_capture
        if inputs.draft_tokens:
            r.after_draft_weights = r.after_capture - plan.draft_weights_gb
            r.after_draft_pool = r.after_draft_weights - 2 * plan.draft_k_gb
            r.draft_graph_gb = draft_graph
            r.final = r.after_draft_pool - draft_graph
    if any(reached(r.after_capture) < SLACK_GB for r in plan.ranks):
        plan.failure = "capture"
    elif inputs.draft_tokens and any(reached(r.final) < SLACK_GB * 0.5 for r in plan.ranks):
        plan.failure = "draft"


def reached(free_gb: float | None) -> float:
    """The free memory after a phase the plan reached (startup logs a phase only once the plan got there)."""
    if free_gb is None:
        raise RuntimeError("the memory plan never reached this startup phase")
    return free_gb
