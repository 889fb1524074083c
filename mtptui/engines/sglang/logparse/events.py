"""The typed event of the `parse-log` contract (design.md): kind, ts, ranks, line, then the kind's fields.

Added to design.md's table (fields are only ever added, never renamed):

- `error` also has `last_frame` (the last `File "…", line N, in f` of its traceback, else null) and `truncated`
  (true when the traceback was cut off before its exception line: the input ended, or a live stream paused,
  mid-crash; false otherwise).
- `request_finish`: the per-request finish line that `--log-requests` prints (`Finish: obj=…, out={…}`, or the
  `request.finished` JSON object with `--log-requests-format json`). `spec_accept_length`/`spec_accept_rate`
  are the request's own speculative acceptance (0.5.12.post1 and 0.5.23; 0.5.2 prints only `spec_verify_ct`);
  see `mtptui.engines.sglang.logparse.requests`.
- `server_args`: the speculative settings of the `server_args=ServerArgs(...)` line, after SGLang's resolution
  (`algorithm`, `steps`, `topk`, `draft_tokens`; `adaptive` true when `--speculative-adaptive` is on and SGLang
  kept it on).
- `spec_adaptive`: adaptive speculative decoding starts (`steps`, `candidates`: the candidate steps it moves
  between) or SGLang turns it off (`disabled`: its reason); `spec_switch`: it moved (`from_steps`, `to_steps`,
  `from_draft_tokens`, `to_draft_tokens`). See `mtptui.engines.sglang.logparse.speculation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Every kind of the contract and its fields, in the order `to_dict` prints them.
FIELDS: dict[str, tuple[str, ...]] = {
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
    "request_finish": ("rid", "finish_reason", "prompt_tokens", "completion_tokens", "cached_tokens",
                       "reasoning_tokens", "e2e_latency_s", "spec_verify_ct", "spec_accept_length",
                       "spec_accept_rate"),
    "server_args": ("algorithm", "steps", "topk", "draft_tokens", "adaptive"),
    "spec_adaptive": ("steps", "candidates", "disabled"),
    "spec_switch": ("from_steps", "to_steps", "from_draft_tokens", "to_draft_tokens"),
}

KINDS = frozenset(FIELDS)


def blank_fields(kind: str) -> dict[str, Any]:
    """A fields dict for `kind` with every contract field present and None."""
    return dict.fromkeys(FIELDS[kind])


@dataclass(slots=True)
class Event:
    """One parsed log line (or an error line with its folded traceback).

    `fields` always holds exactly the contract's fields of `kind`, None where the line does not carry one.
    """

    kind: str
    ts: str | None
    ranks: dict[str, int]
    line: int
    fields: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        """A field's value, or `default` when the line did not carry it."""
        value = self.fields.get(name)
        return default if value is None else value

    def to_dict(self) -> dict[str, Any]:
        """The contract's JSON object: kind, ts, ranks, line, then the kind's fields (null when missing)."""
        out: dict[str, Any] = {"kind": self.kind, "ts": self.ts, "ranks": self.ranks, "line": self.line}
        fields = self.fields
        for name in FIELDS[self.kind]:
            out[name] = fields.get(name)
        return out
