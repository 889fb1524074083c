"""The model a simulated vLLM serves: its config.json facts (what vLLM reads) and its sizes (what the GPU holds).

A local directory with a config.json is read as vLLM reads it (architecture, model type, context length,
layers and heads), its weights sized from its safetensors files. Any other path is a model the simulated GPU
host has and this machine does not: mtptui.sim.model's table (the mission's Qwen3.6-27B, or a dense model sized
from the parameter count in its name) gives both, so a launch judged by vLLM's rules meets the same facts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtptui.sim.model import ModelSpec, lookup

GIB = float(1 << 30)


@dataclass(frozen=True)
class ServedModel:
    """``config``: the facts vLLM's engine arguments read; ``spec``: sizes for memory and timing."""

    path: str
    spec: ModelSpec
    config: dict[str, Any]
    local: bool

    @property
    def architecture(self) -> str:
        return self.spec.arch

    @property
    def max_position(self) -> int:
        return self.spec.context_len


def _read_config(path: Path) -> dict[str, Any] | None:
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return config if isinstance(config, dict) else None


def _int(config: dict[str, Any], key: str, default: int) -> int:
    value = config.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _local_spec(path: Path, config: dict[str, Any]) -> ModelSpec:
    nested = config.get("text_config")
    text: dict[str, Any] = nested if isinstance(nested, dict) else config
    heads = _int(text, "num_attention_heads", 8)
    layers = _int(text, "num_hidden_layers", 2)
    shards = sorted(path.glob("*.safetensors"))
    weights = sum(f.stat().st_size for f in shards) / GIB
    archs = config.get("architectures") or ["LlamaForCausalLM"]
    eos = config.get("eos_token_id")
    return ModelSpec(
        name=path.name, arch=str(archs[0]), model_type=str(config.get("model_type") or "llama"), hybrid=False,
        num_layers=layers, full_attn_layers=layers, kv_heads=_int(text, "num_key_value_heads", heads),
        head_dim=_int(text, "head_dim", _int(text, "hidden_size", 4096) // max(heads, 1)),
        weights_gb=round(weights, 4), shards=max(1, len(shards)),
        context_len=_int(text, "max_position_embeddings", 2048),
        eos_token_id=eos if isinstance(eos, int) else 2, mtp_weights_gb=0.0)


def _table_config(path: str, spec: ModelSpec) -> dict[str, Any]:
    return {"_path": path, "model_type": spec.model_type, "architectures": [spec.arch],
            "max_position_embeddings": spec.context_len}


def served_model(path: str) -> ServedModel:
    """The model at ``path``: read from its directory here, else from the simulated host's table."""
    local = Path(path).expanduser()
    config = _read_config(local) if local.is_dir() else None
    if config is not None:
        return ServedModel(path, _local_spec(local, config), config, True)
    spec = lookup(path)
    return ServedModel(path, spec, _table_config(path, spec), False)


def draft_weights_gb(model: ServedModel, method: str | None, tp: int) -> float:
    """What the draft adds to each rank: an MTP or EAGLE head, a small model, or nothing (n-gram lookup)."""
    if method is None or method.startswith("ngram") or method == "suffix":
        return 0.0
    if method == "mtp":
        return (model.spec.mtp_weights_gb or model.spec.weights_gb * 0.05) / tp
    if method.startswith("eagle"):
        return model.spec.weights_gb * 0.03 / tp
    return max(0.5, model.spec.weights_gb * 0.04) / tp
