"""Which model the simulated server serves: architecture, layer shapes and weight sizes, from the model path.

A stand-in for reading a checkpoint's config.json (there is no checkpoint here): a small table of known
models, and a generic dense model sized from the parameter count in the path (e.g. ``...-8B``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import PurePosixPath


@dataclass(frozen=True)
class ModelSpec:
    """The facts about a model that the log, the memory model and /model_info need."""

    name: str
    arch: str
    model_type: str
    hybrid: bool  # GDN (mamba-style linear attention) layers between the full-attention layers
    num_layers: int
    full_attn_layers: int
    kv_heads: int
    head_dim: int
    weights_gb: float  # all ranks together, GiB
    shards: int
    context_len: int
    eos_token_id: int
    mtp_arch: str | None = None
    mtp_weights_gb: float = 0.0  # all ranks together, GiB
    mtp_layers: int = 1
    linear_k_heads: int = 0
    linear_v_heads: int = 0
    linear_head_dim: int = 0
    conv_kernel: int = 4
    dtype: str = "torch.bfloat16"

    @property
    def linear_layers(self) -> int:
        return self.num_layers - self.full_attn_layers


QWEN36_27B = ModelSpec(
    name="Qwen3.6-27B", arch="Qwen3_5ForCausalLM", model_type="qwen3_5", hybrid=True,
    num_layers=64, full_attn_layers=16, kv_heads=4, head_dim=256,
    weights_gb=51.28, shards=15, context_len=262144, eos_token_id=248046,
    mtp_arch="Qwen3_5ForCausalLMMTP", mtp_weights_gb=5.64,
    linear_k_heads=16, linear_v_heads=48, linear_head_dim=128,
)

_KNOWN = [
    (re.compile(r"qwen3\.[56]-27b", re.I), QWEN36_27B),
]


def _params_billion(name: str) -> float:
    found = re.findall(r"(\d+(?:\.\d+)?)[bB](?![a-zA-Z])", name)
    return float(found[-1]) if found else 8.0


def _generic(name: str) -> ModelSpec:
    """A dense (all full-attention) model sized from the parameter count in its name."""
    params = _params_billion(name)
    weights = round(params * 2e9 / 2**30, 2)
    layers = 32 if params <= 10 else 48 if params <= 20 else 64 if params <= 40 else 80
    lower = name.lower()
    arch, model_type, ctx, eos = ("LlamaForCausalLM", "llama", 131072, 128009)
    if "qwen3" in lower:
        arch, model_type, ctx, eos = ("Qwen3ForCausalLM", "qwen3", 40960, 151645)
    elif "qwen" in lower:
        arch, model_type, ctx, eos = ("Qwen2ForCausalLM", "qwen2", 32768, 151645)
    return ModelSpec(
        name=name, arch=arch, model_type=model_type, hybrid=False, num_layers=layers,
        full_attn_layers=layers, kv_heads=8, head_dim=128, weights_gb=weights,
        shards=max(1, math.ceil(weights / 4.6)), context_len=ctx, eos_token_id=eos,
        mtp_arch=f"{arch}MTP", mtp_weights_gb=round(weights * 0.05, 2),
    )


def lookup(model_path: str) -> ModelSpec:
    """The model a path names (a local folder or a Hugging Face repo id)."""
    name = PurePosixPath(model_path.rstrip("/")).name or model_path
    for pattern, spec in _KNOWN:
        if pattern.search(name):
            return replace(spec, name=name)
    return _generic(name)
