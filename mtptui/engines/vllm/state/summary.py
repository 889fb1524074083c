"""`parse-log --summary` for a vLLM log: SGLang's top-level keys with vLLM's meaning, and vLLM's own.

Same keys as SGLang's summary (mtptui.engines.sglang.state.summary), so a reader of one reads the other:
`steady_gen_throughput` is the mean generation throughput of the busy stats intervals (vLLM logs one every
~10 s; an idle one is not printed), `last_decode` the last engine-stats line, `series` one sample per stats
line (with that interval's accept length and rate), `capacity` the KV tokens, the model length and the
concurrency vLLM computed. Keys SGLang has and vLLM's log cannot fill are null (`request_speculation`,
`requests.prefill`, `requests.finished`). Added: `engine`, `version`, `model`, `architecture`, `launch_args`
(the `non-default args` dict), `engine_config`, `speculation` (interval figures of the last line, and the
acceptance rate over the whole log from its token counts), `throughput`, `running`, `waiting`, `kv_usage`,
`routes`, and `cause` on `error` (the run's root cause).
"""

from __future__ import annotations

from typing import Any

from mtptui.engines.vllm.state.model import VllmState

SERIES_FIELDS = ("ts", "accept_len", "accept_rate", "gen_throughput", "running_req")


def _capacity(state: VllmState) -> dict[str, Any] | None:
    startup = state.startup
    args = startup.launch_args or {}
    tokens, context = startup.memory.kv_tokens(), startup.max_model_len
    if tokens is None and context is None:
        return None
    return {"max_total_num_tokens": tokens, "chunked_prefill_size": args.get("max_num_batched_tokens"),
            "max_prefill_tokens": args.get("max_num_batched_tokens"), "max_running_requests": args.get("max_num_seqs"),
            "context_len": context, "available_gpu_mem_gb": None, "max_concurrency": startup.memory.max_concurrency()}


def _speculation(state: VllmState) -> dict[str, Any] | None:
    config = state.startup.engine_config or {}
    if state.spec is None and not config.get("speculative_method"):
        return None
    last = state.spec or {}
    rate = state.accepted_tokens / state.drafted_tokens if state.drafted_tokens else None
    return {"method": config.get("speculative_method"), "num_speculative_tokens": config.get("num_speculative_tokens"),
            "last_accept_len": last.get("accept_len"), "last_accept_rate": last.get("accept_rate"),
            "last_per_position": last.get("per_position"), "depth": last.get("depth"),
            "accepted_tokens": state.accepted_tokens, "drafted_tokens": state.drafted_tokens,
            "accept_rate": round(rate, 6) if rate is not None else None, "lines": state.spec_count}


def state_to_dict(state: VllmState) -> dict[str, Any]:
    startup, stats, spec = state.startup, state.stats or {}, state.spec or {}
    steady = state.busy_total / state.busy_count if state.busy_count else None
    return {
        "engine": "vllm", "phase": state.phase, "startups": state.startups,
        "started_at": startup.started_at, "ready_at": startup.ready_at,
        "shards": startup.shards, "graph_capture": startup.graph_capture,
        "memory": startup.memory.to_dict(), "capacity": _capacity(state),
        "steady_gen_throughput": steady, "steady_gen_throughput_this_startup": steady,
        "steady_batches": state.busy_count,
        "last_accept_len": spec.get("accept_len"), "last_accept_rate": spec.get("accept_rate"),
        "last_decode": state.stats,
        "series": {name: [sample[i] for sample in state.series] for i, name in enumerate(SERIES_FIELDS)},
        "requests": {"http": {str(code): n for code, n in sorted(state.http_status.items())}, "prefill": None,
                     "decode": state.stats_count, "finished": None},
        "request_speculation": None,
        "warnings": {"count": state.warning_count, "last": state.last_warning},
        "error": state.last_error,
        "version": startup.version, "model": startup.model, "architecture": startup.architecture,
        "launch_args": startup.launch_args, "engine_config": startup.engine_config,
        "speculation": _speculation(state),
        "throughput": {"last_gen": stats.get("gen_throughput"), "last_prompt": stats.get("prompt_throughput"),
                       "steady_gen": steady},
        "running": stats.get("running_req"), "waiting": stats.get("queue_req"), "kv_usage": stats.get("token_usage"),
        "init_s": startup.init_s, "url": startup.url, "routes": startup.routes or None,
        "cause": startup.cause,
    }
