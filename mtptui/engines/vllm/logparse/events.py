"""The `parse-log` events of a vLLM log: design.md's kinds where the meaning is the same, new kinds where not.

Every event has `kind`, `ts` (as vLLM prints it: `MM-DD HH:MM:SS`, no year), `ranks` (from the process name:
`Worker_PP0_TP1` -> `{"PP": 0, "TP": 1}`, `EngineCore_DP0` -> `{"DP": 0}`, `VllmWorker-2` -> `{"rank": 2}`),
`line`, and, added for vLLM, `process` (the name in `(NAME pid=N)`, null on older builds).

Shared kinds, with vLLM's line:

- `shard_progress`: `Loading safetensors checkpoint shards:  25% Completed | 1/4 [...]`
- `weight_load_begin`: `Starting to load model M...` (`avail_mem_gb` null: vLLM does not print it)
- `weight_load_end`: `Loading weights took 0.01 seconds` (`elapsed_s`) and, on GPU builds, `Model loading
  took 4.21 GiB memory and 5.31 seconds` (`mem_usage_gb` too); a GPU build prints both
- `kv_cache`: `Available KV cache memory: 1.50 GiB` (`kv_size_gb`) and `GPU KV cache size: 49,152 tokens`
  (`tokens`); added fields `device` (`GPU`, `CPU`) and `max_concurrency` with its `context_len`
- `graph_capture_progress`: `Capturing CUDA graphs (...): 45%|...| 30/67` (`done`, `total`)
- `graph_capture_end`: `Graph capturing finished in 8 secs, took 0.31 GiB`
- `server_ready`: `Application startup complete.`
- `http_access`: uvicorn's access line
- `warning`: every WARNING line; `error`: every ERROR/CRITICAL line and unprefixed crash reports, with the
  traceback folded in; added field `cause`: the root-cause line of the traceback (the first exception of a
  chain, e.g. `torch.OutOfMemoryError: CUDA out of memory ...` under `EngineCore failed to start.`)

New kinds (no SGLang line means the same):

- `banner`: `version` or `model` from the start banner (one line each), or both from the plain form
- `launch_args`: `non-default args: {...}`: `args`, the dict as vLLM parsed the command line (null if the
  text is not a Python literal)
- `architecture`: `Resolved architecture: X`; `max_model_len`: `Using max model len N` (`tokens`)
- `engine_config`: `Initializing a V1 LLM engine (vX) with config: ...`: `version` and the main settings
- `engine_init_end`: `init engine (profile, create kv cache, warmup model) took 19.94 s` (`elapsed_s`,
  `compile_s`)
- `server_listen`: `Starting vLLM server on URL` (`url`)
- `route`: `Route: /v1/models, Methods: GET`, the server's own list of its routes (`methods` a list)
- `engine_stats`: the periodic `Engine 000: Avg prompt throughput ...` line (`engine_index` is the 000; rates
  in 0-1, like SGLang's `token_usage`)
- `spec_decode`: the periodic `SpecDecoding metrics: ...` line: interval figures, `per_position` a list,
  `accept_rate` in 0-1, `depth` from `Current speculative depth` where a build prints it
"""

from __future__ import annotations

from typing import Any

from mtptui.engines.sglang.logparse.events import FIELDS as SGLANG_FIELDS
from mtptui.engines.sglang.logparse.events import Event

SHARED = ("shard_progress", "weight_load_begin", "weight_load_end", "graph_capture_progress", "graph_capture_end",
          "server_ready", "http_access", "warning")

FIELDS: dict[str, tuple[str, ...]] = {
    **{kind: SGLANG_FIELDS[kind] for kind in SHARED},
    "kv_cache": (*SGLANG_FIELDS["kv_cache"], "device", "max_concurrency", "context_len"),
    "error": (*SGLANG_FIELDS["error"], "cause"),
    "banner": ("version", "model"),
    "launch_args": ("args",),
    "architecture": ("architecture",),
    "max_model_len": ("tokens",),
    "engine_config": ("version", "model", "dtype", "max_seq_len", "tensor_parallel_size", "pipeline_parallel_size",
                      "data_parallel_size", "quantization", "kv_cache_dtype", "enforce_eager", "device",
                      "speculative_method", "num_speculative_tokens"),
    "engine_init_end": ("elapsed_s", "compile_s"),
    "server_listen": ("url",),
    "route": ("path", "methods"),
    "engine_stats": ("engine_index", "prompt_throughput", "gen_throughput", "running_req", "queue_req", "deferred_req",
                     "preemptions", "kv_device", "token_usage", "prefix_cache_hit_rate",
                     "external_prefix_cache_hit_rate"),
    "spec_decode": ("accept_len", "accepted_throughput", "drafted_throughput", "accepted_tokens", "drafted_tokens",
                    "per_position", "accept_rate", "depth"),
}

KINDS = frozenset(FIELDS)
NEW_KINDS = frozenset(FIELDS) - frozenset(SGLANG_FIELDS)


def blank_fields(kind: str) -> dict[str, Any]:
    return dict.fromkeys(FIELDS[kind])


class VllmEvent(Event):
    """An event of a vLLM log: the contract's shape, with vLLM's kinds and the process that logged it."""

    __slots__ = ("process",)

    def __init__(self, kind: str, ts: str | None, ranks: dict[str, int], line: int, fields: dict[str, Any],
                 process: str | None = None) -> None:
        super().__init__(kind, ts, ranks, line, fields)
        self.process = process

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "ts": self.ts, "ranks": self.ranks, "line": self.line,
                               "process": self.process}
        fields = self.fields
        for name in FIELDS[self.kind]:
            out[name] = fields.get(name)
        return out
