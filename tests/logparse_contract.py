"""The `parse-log` event contract as design.md states it, kept apart from the code under test."""

from __future__ import annotations

from typing import Any

CONTRACT: dict[str, tuple[str, ...]] = {
    "shard_progress": ("desc", "done", "total", "percent"),
    "weight_load_begin": ("avail_mem_gb",),
    "weight_load_end": ("model_type", "dtype", "elapsed_s", "avail_mem_gb", "mem_usage_gb"),
    "kv_cache": ("dtype", "tokens", "k_size_gb", "v_size_gb", "kv_size_gb"),
    "mamba_cache": ("max_size", "conv_state_gb", "ssm_state_gb"),
    "memory_pool_end": ("avail_mem_gb",),
    "capacity": ("max_total_num_tokens", "chunked_prefill_size", "max_prefill_tokens", "max_running_requests",
                 "context_len", "available_gpu_mem_gb"),
    "graph_capture_begin": ("avail_mem_gb",),
    "graph_capture_progress": ("bs", "avail_mem_gb", "done", "total"),
    "graph_capture_end": ("elapsed_s", "mem_usage_gb", "avail_mem_gb"),
    "prefill": ("new_seq", "new_token", "cached_token", "token_usage", "mamba_usage", "running_req", "queue_req",
                "input_throughput"),
    "decode": ("running_req", "tokens", "token_usage", "mamba_usage", "accept_len", "accept_rate", "graph",
               "gen_throughput", "queue_req"),
    "server_ready": (),
    "http_access": ("client", "method", "path", "status"),
    "warning": ("message",),
    "error": ("message", "traceback", "last_frame", "truncated"),
    # Added by issue 16 (design.md: extend, never rename): one request's `--log-requests` finish line.
    "request_finish": ("rid", "finish_reason", "prompt_tokens", "completion_tokens", "cached_tokens",
                       "reasoning_tokens", "e2e_latency_s", "spec_verify_ct", "spec_accept_length",
                       "spec_accept_rate"),
    # Added by issue 26: the resolved launch's speculation and adaptive speculative decoding.
    "server_args": ("algorithm", "steps", "topk", "draft_tokens", "adaptive"),
    "spec_adaptive": ("steps", "candidates", "disabled"),
    "spec_switch": ("from_steps", "to_steps", "from_draft_tokens", "to_draft_tokens"),
}
DEFAULTS = {("error", "truncated"): False}  # a field that is a boolean on every event of its kind


def ev(kind: str, ts: str | None = None, ranks: dict[str, int] | None = None, line: int = 1,
       **fields: Any) -> dict[str, Any]:
    """The JSON object the contract prescribes: every field of `kind` present, null (or its DEFAULTS) unless given."""
    unknown = set(fields) - set(CONTRACT[kind])
    assert not unknown, f"not a field of {kind}: {unknown}"
    out = {"kind": kind, "ts": ts, "ranks": ranks or {}, "line": line}
    out.update({name: fields.get(name, DEFAULTS.get((kind, name))) for name in CONTRACT[kind]})
    return out
