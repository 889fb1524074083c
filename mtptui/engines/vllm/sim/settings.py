"""The launch as the simulated vLLM runs it: `vllm serve`'s arguments after vLLM's own checks and resolution.

The checks are the knowledge layer's (mtptui.engines.vllm.flags.judge, held to vLLM's code by the differential
test); this module reads the parsed namespace and the resolved values into one record, with the defaults vLLM
resolves on the simulated GPU (an A6000-class card: 2048 batched tokens and 256 sequences for the API server).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mtptui.engines.vllm.flags.parser import parse_serve
from mtptui.engines.vllm.sim.model import ServedModel
from mtptui.sim.decode import env_knobs

BATCHED_TOKENS, NUM_SEQS = 2048, 256  # get_batch_defaults: OPENAI_API_SERVER below 70 GiB of device memory
DEFAULT_PORT = 8000
BLOCK_SIZE = 16  # the GPU attention backends' KV block


@dataclass
class VllmSettings:
    """Resolved launch values of one simulated `vllm serve`."""

    version: str
    argv: list[str]
    model: ServedModel
    served_model_name: str
    port: int
    non_default: dict[str, Any]
    max_model_len: int
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    data_parallel_size: int = 1
    max_num_seqs: int = NUM_SEQS
    max_num_batched_tokens: int = BATCHED_TOKENS
    gpu_memory_utilization: float = 0.92
    dtype: str = "auto"
    kv_cache_dtype: str = "auto"
    block_size: int = BLOCK_SIZE
    enable_prefix_caching: bool = True
    enforce_eager: bool = False
    seed: int = 0
    spec_method: str | None = None
    spec_tokens: int = 0
    spec_model: str | None = None
    load_tracking: bool = False
    log_stats: bool = True
    access_log: bool = True
    access_log_exclude: list[str] = field(default_factory=list)
    uvicorn_log_level: str = "info"
    reasoning_parser: str | None = None
    acceptance: float = 1.0  # test knobs of mtptui.sim.decode
    verify_slowdown: float = 1.0
    warnings: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def speculative(self) -> bool:
        return self.spec_method is not None and self.spec_tokens > 0


def non_default_args(namespace: Any, version: str) -> dict[str, Any]:
    """`get_non_default_args`: every argument whose value differs from the parser's default, in parser order."""
    defaults = vars(parse_serve([], version))
    missing = object()
    return {key: value for key, value in vars(namespace).items() if defaults.get(key, missing) != value}


def _spec(resolved: dict[str, Any]) -> dict[str, Any]:
    method = resolved.get("speculative_method")
    if method is None:
        return {}
    return {"spec_method": str(method), "spec_tokens": int(resolved.get("num_speculative_tokens") or 0),
            "spec_model": resolved.get("draft_model")}


def _served_name(namespace: Any, model: str) -> str:
    names = getattr(namespace, "served_model_name", None)
    return str(names[0]) if names else model


def _excluded(namespace: Any) -> list[str]:
    text = getattr(namespace, "disable_access_log_for_endpoints", None) or ""
    return [path.strip() for path in str(text).split(",") if path.strip()]


def from_namespace(namespace: Any, resolved: dict[str, Any], model: ServedModel, version: str,
                   warnings: list[str], env: dict[str, str]) -> VllmSettings:
    """The settings of a launch vLLM accepted (``resolved``: the judge's engine-config values)."""
    ns = namespace
    settings = VllmSettings(
        version=version, argv=[], model=model, served_model_name=_served_name(ns, model.path),
        port=int(ns.port or DEFAULT_PORT), non_default=non_default_args(ns, version),
        max_model_len=int(resolved.get("max_model_len") or model.max_position),
        tensor_parallel_size=int(ns.tensor_parallel_size or 1), pipeline_parallel_size=int(ns.pipeline_parallel_size
                                                                                            or 1),
        data_parallel_size=int(ns.data_parallel_size or 1),
        max_num_seqs=int(ns.max_num_seqs or NUM_SEQS), max_num_batched_tokens=int(ns.max_num_batched_tokens
                                                                                  or BATCHED_TOKENS),
        gpu_memory_utilization=float(ns.gpu_memory_utilization), dtype=str(ns.dtype or "auto"),
        kv_cache_dtype=str(ns.kv_cache_dtype or "auto"), block_size=int(ns.block_size or BLOCK_SIZE),
        enable_prefix_caching=ns.enable_prefix_caching is not False, enforce_eager=bool(ns.enforce_eager),
        seed=int(ns.seed or 0), load_tracking=bool(ns.enable_server_load_tracking),
        log_stats=not ns.disable_log_stats, access_log=not ns.disable_uvicorn_access_log,
        access_log_exclude=_excluded(ns), uvicorn_log_level=str(ns.uvicorn_log_level or "info"),
        reasoning_parser=ns.reasoning_parser or None,
        warnings=list(warnings), env=dict(env))
    for name, value in _spec(resolved).items():
        setattr(settings, name, value)
    settings.acceptance, settings.verify_slowdown = env_knobs(env)
    return settings
