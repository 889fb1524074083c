"""The launch as the simulated server runs it: SGLang's flags after validation and auto-resolution.

Validation and speculative resolution come from ``mtptui.engines.sglang.flags`` (the same rules the real server
applies); this module only reads the resolved values into one typed record.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from mtptui.engines.sglang.adaptive import CONFIG_FLAG as ADAPTIVE_CONFIG, FLAG as ADAPTIVE, AdaptiveStart
from mtptui.engines.sglang.flags import Effective, FlagSet, resolve_effective
from mtptui.engines.sglang.flags.effective import resolve_spec
from mtptui.sim.decode import env_knobs

_DEST_RENAMES = {"tensor_parallel_size": "tp_size", "data_parallel_size": "dp_size",
                 "pipeline_parallel_size": "pp_size", "expert_parallel_size": "ep_size"}


@dataclass
class SimSettings:
    """Resolved launch values; ``None`` where SGLang sizes the value itself later (memory, context)."""

    version: str
    model_path: str
    argv: list[str]
    served_model_name: str
    tp_size: int = 1
    spec_algorithm: str | None = None
    spec_steps: int = 0
    spec_topk: int = 1
    spec_draft_tokens: int = 0
    adaptive: bool = False  # --speculative-adaptive, as SGLang leaves it after its checks
    adaptive_start: AdaptiveStart | None = None
    adaptive_error: str | None = None  # what the worker dies of when it reads the config file (0.5.12.post1)
    acceptance: float = 1.0  # test knobs of mtptui.sim.decode
    verify_slowdown: float = 1.0
    max_running_requests: int | None = None
    mem_fraction_static: float | None = None
    context_length: int | None = None
    chunked_prefill_size: int | None = None
    max_prefill_tokens: int = 16384
    mamba_ratio: float = 0.9
    mamba_strategy: str = "no_buffer"
    decode_log_interval: int = 40
    reasoning_parser: str | None = None
    tool_call_parser: str | None = None
    enable_metrics: bool = False
    kv_cache_dtype: str = "auto"
    mamba_ssm_dtype: str | None = None
    cuda_graph: bool = True
    cuda_graph_max_bs: int | None = None
    stream_interval: int = 1
    default_include_usage: bool = False
    enable_cache_report: bool = False
    disable_radix_cache: bool = False
    skip_warmup: bool = False
    log_level: str = "info"
    log_level_http: str | None = None
    access_exclude: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    resolved_args: dict[str, object] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def speculative(self) -> bool:
        return self.spec_algorithm is not None


def _value(effective: dict[str, Effective], name: str, default: object = None) -> object:
    found = effective.get(name)
    return found.value if found is not None and found.value is not None else default


def _numeric(value: object) -> int | float | str:
    """A numeric flag's value (the flag table has parsed it: a number, or its text)."""
    if not isinstance(value, (int, float, str)):
        raise TypeError(f"not a number: {value!r}")
    return value


def as_int(value: object) -> int:
    """A numeric flag's (or resolved ServerArgs field's) value as int."""
    return int(_numeric(value))


def _optional_int(value: object) -> int | None:
    return None if value is None else as_int(value)


def _resolved_args(fs: FlagSet) -> dict[str, object]:
    """Every ServerArgs field: the table's defaults overlaid with what the command sets."""
    out: dict[str, object] = {}
    for spec in fs.table.flags:
        dest = _DEST_RENAMES.get(spec.dest, spec.dest)
        out[dest] = fs.model_path if spec.name == "--model-path" else fs.flags.get(spec.name, spec.default)
    return out


def _spec_fields(fs: FlagSet, model_arch: str | None) -> dict[str, object]:
    spec = resolve_spec(fs, model_arch)
    if spec.algorithm is None:
        return {}
    values = {name: e.value for name, e in spec.values.items()}
    steps = as_int(values.get("--speculative-num-steps") or 0)
    return {"spec_algorithm": spec.algorithm, "spec_steps": steps, "adaptive": bool(values.get(ADAPTIVE)),
            "adaptive_start": spec.adaptive,
            "adaptive_error": next((text for flag, text in spec.warnings if flag == ADAPTIVE_CONFIG), None),
            "spec_topk": as_int(values.get("--speculative-eagle-topk") or 1),
            "spec_draft_tokens": as_int(values.get("--speculative-num-draft-tokens") or steps + 1),
            "warnings": [text for flag, text in spec.warnings if flag != ADAPTIVE_CONFIG]}


def _mamba_strategy(fs: FlagSet, effective: dict[str, Effective]) -> str:
    for name in ("--mamba-scheduler-strategy", "--mamba-radix-cache-strategy"):
        if name in fs.table:
            default = "extra_buffer" if name.endswith("radix-cache-strategy") else "no_buffer"
            return str(_value(effective, name, default))
    return "no_buffer"


def from_flagset(fs: FlagSet, model_arch: str | None = None, environ: dict[str, str] | None = None) -> SimSettings:
    """The simulated server's settings for a launch that passed SGLang's checks."""
    effective = resolve_effective(fs, model_arch)
    get = fs.get
    settings = SimSettings(
        version=fs.version, model_path=fs.model_path or "", argv=[],
        served_model_name=get("--served-model-name") or fs.model_path or "",
        tp_size=int(get("--tp-size", 1)),
        max_running_requests=_optional_int(_value(effective, "--max-running-requests",
                                                  get("--max-running-requests"))),
        mem_fraction_static=get("--mem-fraction-static"), context_length=get("--context-length"),
        chunked_prefill_size=get("--chunked-prefill-size"), max_prefill_tokens=int(get("--max-prefill-tokens", 16384)),
        mamba_ratio=float(_numeric(_value(effective, "--mamba-full-memory-ratio", 0.9))),
        mamba_strategy=_mamba_strategy(fs, effective),
        decode_log_interval=max(1, int(get("--decode-log-interval", 40))),
        reasoning_parser=get("--reasoning-parser"), tool_call_parser=get("--tool-call-parser"),
        enable_metrics=bool(get("--enable-metrics")), kv_cache_dtype=str(get("--kv-cache-dtype", "auto")),
        mamba_ssm_dtype=get("--mamba-ssm-dtype"),
        cuda_graph=not get("--disable-cuda-graph"),
        cuda_graph_max_bs=get("--cuda-graph-max-bs") or get("--cuda-graph-max-bs-decode"),
        stream_interval=max(1, int(get("--stream-interval", 1))),
        default_include_usage=bool(get("--stream-response-default-include-usage")),
        enable_cache_report=bool(get("--enable-cache-report")),
        disable_radix_cache=bool(get("--disable-radix-cache")), skip_warmup=bool(get("--skip-server-warmup")),
        log_level=str(get("--log-level", "info")), log_level_http=get("--log-level-http"),
        access_exclude=list(get("--uvicorn-access-log-exclude-prefixes") or []),
        resolved_args=_resolved_args(fs),
        env=dict(os.environ if environ is None else environ),
    )
    for name, value in _spec_fields(fs, model_arch).items():
        setattr(settings, name, value)
    settings.acceptance, settings.verify_slowdown = env_knobs(settings.env)
    return settings
