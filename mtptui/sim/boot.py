"""Everything the simulated server derives at start from its settings: sizes, memory plan, decode model."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from mtptui.engines.sglang.surface import Surface, surface_of
from mtptui.sim.decode import DecodeModel
from mtptui.sim.memory import MemoryInputs, MemoryPlan, auto_mem_fraction, plan_memory
from mtptui.sim.model import ModelSpec, lookup
from mtptui.sim.settings import SimSettings

CAPTURE_BS = (1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 160, 192, 224, 256)
UNSET_REQ_POOL = 2048  # request-table rows SGLang allots when --max-running-requests is unset (no speculation)
_KV_BYTES = {"fp8_e5m2": 1, "fp8_e4m3": 1, "mxfp8": 1, "nvfp4": 1, "fp4_mx_block16": 1}
_KV_DTYPE = {"fp8_e5m2": "torch.float8_e5m2", "fp8_e4m3": "torch.float8_e4m3fn"}


class ContextTooLong(ValueError):
    """--context-length above the model's own, without the override env var."""


@dataclass
class StartupTimings:
    """Startup durations (s) as 0.5.23's /server_info reports them, filled in as the phases run."""

    load_weight: float = 0.0
    kv_cache_allocation: float = 0.0
    scheduler_e2e: float = 0.0
    tokenizer_e2e: float | None = None  # once warm-up is done (until then /server_info shows scheduler_e2e)
    cuda_graph: dict[str, float] = field(default_factory=dict)  # capture time by graph phase (decode, draft_extend)


@dataclass
class Boot:
    """The server's derived configuration: what the startup log reports and the engine runs with."""

    settings: SimSettings
    model: ModelSpec
    gpu_mem_gb: float
    context_len: int
    chunked_prefill: int
    mem_fraction: float
    capture_bs: list[int]
    memory: MemoryPlan
    decode: DecodeModel  # replaced when adaptive speculation switches steps (mtptui.sim.adaptive)
    kv_dtype: str
    timings: StartupTimings = field(default_factory=StartupTimings)

    @property
    def surface(self) -> Surface:
        """What this SGLang version exposes (mtptui.engines.sglang.surface): the server serves exactly that."""
        return surface_of(self.settings.version)

    @property
    def max_running(self) -> int:
        """``max_running_requests`` as the capacity line reports it."""
        given = self.settings.max_running_requests
        if given is not None:
            return int(given)
        cap = min(UNSET_REQ_POOL, max(1, self.memory.tokens // 2))
        return min(cap, self.memory.mamba.size) if self.memory.mamba else cap


def _context_len(settings: SimSettings, model: ModelSpec) -> int:
    wanted = settings.context_length
    if wanted is None:
        return model.context_len
    if wanted > model.context_len and os.environ.get("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN") != "1":
        raise ContextTooLong(
            f"Warning: User-specified context_length ({wanted}) is greater than the derived context_length "
            f"({model.context_len}). This may lead to incorrect model outputs or CUDA errors. To allow overriding "
            "this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")
    return int(wanted)


def _capture_bs(settings: SimSettings, gpu_mem_gb: float) -> list[int]:
    if not settings.cuda_graph:
        return []
    limit = settings.cuda_graph_max_bs or (80 if gpu_mem_gb < 60 else 256)
    if settings.max_running_requests is not None:
        limit = min(limit, int(settings.max_running_requests))
    return [bs for bs in CAPTURE_BS if bs <= limit] or [1]


def build_boot(settings: SimSettings, gpu_mem_gb: float = 48.0) -> Boot:
    """Derive sizes and plan memory; raises ContextTooLong as SGLang's model config does."""
    model = lookup(settings.model_path)
    context_len = _context_len(settings, model)
    chunked = settings.chunked_prefill_size or (2048 if gpu_mem_gb < 20 else 4096 if gpu_mem_gb < 60 else 8192)
    capture_bs = _capture_bs(settings, gpu_mem_gb)
    fraction = settings.mem_fraction_static or auto_mem_fraction(
        gpu_mem_gb, settings.tp_size, chunked, max(capture_bs or [1]), settings.speculative)
    req_rows = int(settings.max_running_requests or UNSET_REQ_POOL)
    kv_bytes = _KV_BYTES.get(settings.kv_cache_dtype, 2)
    inputs = MemoryInputs(gpu_mem_gb, settings.tp_size, float(fraction), context_len, req_rows,
                          settings.mamba_ratio, settings.spec_draft_tokens if settings.speculative else 0,
                          tuple(capture_bs), kv_bytes, 4 if settings.mamba_ssm_dtype == "float32" else 2)
    knobs = DecodeModel(acceptance=settings.acceptance, verify_slowdown=settings.verify_slowdown)
    decode = replace(knobs, steps=settings.spec_steps, topk=settings.spec_topk,
                     draft_tokens=settings.spec_draft_tokens) if settings.speculative else knobs
    return Boot(settings, model, gpu_mem_gb, context_len, chunked, float(fraction), capture_bs,
                plan_memory(model, inputs), decode, _KV_DTYPE.get(settings.kv_cache_dtype, model.dtype))
