"""What the simulated vLLM derives at start from its settings: memory, KV cache, the decode model by method."""

from __future__ import annotations

from dataclasses import dataclass, field

from mtptui.engines.vllm.sim.memory import KV_BYTES, MemoryAsk, VllmMemory, plan
from mtptui.engines.vllm.sim.model import draft_weights_gb
from mtptui.engines.vllm.sim.settings import VllmSettings
from mtptui.sim.decode import DecodeModel
from mtptui.sim.drafting import DRAFT_MODEL, EAGLE3_HEAD, EAGLE_HEAD, MTP_HEAD, NGRAM_LOOKUP, Drafter

DRAFTERS: dict[str, Drafter] = {"mtp": MTP_HEAD, "eagle": EAGLE_HEAD, "eagle3": EAGLE3_HEAD, "ngram": NGRAM_LOOKUP,
                                "ngram_gpu": NGRAM_LOOKUP, "suffix": NGRAM_LOOKUP}


def drafter_of(method: str) -> Drafter:
    """The draft kind a method runs (a separate small model for the rest: draft_model, medusa, ...)."""
    return DRAFTERS.get(method, DRAFT_MODEL)


def decode_model(settings: VllmSettings) -> DecodeModel:
    """K draft tokens verified per step (topk 1), costed and accepted as the method's draft kind (and the test
    knobs: acceptance, verify slowdown)."""
    acceptance, slowdown = settings.acceptance, settings.verify_slowdown
    if not settings.speculative or settings.spec_method is None:
        return DecodeModel(acceptance=acceptance, verify_slowdown=slowdown)
    k = settings.spec_tokens
    return DecodeModel(steps=k, topk=1, draft_tokens=k + 1, drafter=drafter_of(settings.spec_method),
                       acceptance=acceptance, verify_slowdown=slowdown)


@dataclass
class VllmBoot:
    """The derived configuration: what the startup log reports and the engine runs with."""

    settings: VllmSettings
    gpu_mem_gb: float
    memory: VllmMemory
    decode: DecodeModel
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def max_running(self) -> int:
        return self.settings.max_num_seqs


def _draft_layers(settings: VllmSettings) -> int:
    """Attention layers a draft head adds to the KV pool (a separate draft model's cache is not modelled)."""
    method = settings.spec_method or ""
    if method == "mtp":
        return settings.model.spec.mtp_layers
    return 1 if method.startswith("eagle") else 0


def build_boot(settings: VllmSettings, gpu_mem_gb: float = 48.0) -> VllmBoot:
    s = settings
    ask = MemoryAsk(gpu_mem_gb, s.tensor_parallel_size, s.gpu_memory_utilization, s.max_model_len, s.max_num_seqs,
                    s.max_num_batched_tokens, s.block_size, KV_BYTES.get(s.kv_cache_dtype, 2),
                    draft_weights_gb(s.model, s.spec_method, s.tensor_parallel_size), not s.enforce_eager,
                    _draft_layers(s))
    return VllmBoot(settings, gpu_mem_gb, plan(s.model.spec, ask), decode_model(settings))
