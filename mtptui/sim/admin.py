"""The simulated server's load, cache and model endpoints: ``/v1/loads``, ``/get_load`` (0.5.12 only),
``/flush_cache``, ``/v1/models/{model}`` (shapes from ``entrypoints/v1_loads.py`` and ``http_server.py``)."""

from __future__ import annotations

import time
from datetime import datetime, timezone

from mtptui.sim.jsonbody import Json
from mtptui.sim.runtime import Runtime

SECTIONS = ("core", "memory", "spec", "lora", "disagg", "queues")


def _core(rt: Runtime) -> Json:
    engine, plan = rt.engine, rt.boot.memory
    use = engine.pool_use()
    pending = sum(r.prompt_tokens for r in engine.waiting)
    return {"dp_rank": 0, "num_running_reqs": use.running, "num_waiting_reqs": use.queued,
            "num_used_tokens": use.tokens, "num_total_tokens": use.tokens + pending,
            "max_total_num_tokens": plan.tokens, "token_usage": round(use.tokens / max(plan.tokens, 1), 4),
            "gen_throughput": engine.stats.last_gen_throughput, "cache_hit_rate": 0.0,
            "utilization": round(use.running / max(rt.boot.max_running, 1), 4),
            "max_running_requests": rt.boot.max_running}


def load(rt: Runtime, include: set[str]) -> Json:
    """One DP rank's load with the optional sections asked for (``include``)."""
    entry = _core(rt)
    plan = rt.boot.memory
    if "memory" in include:
        entry["memory"] = {"weight_gb": round(plan.weights_gb + plan.draft_weights_gb, 2),
                           "kv_cache_gb": round(2 * (plan.k_gb + plan.draft_k_gb), 2),
                           "graph_gb": round(plan.ranks[0].target_graph_gb + plan.ranks[0].draft_graph_gb, 2),
                           "token_capacity": plan.tokens}
    last_spec = rt.engine.stats.last_spec
    if "spec" in include and rt.boot.settings.speculative and last_spec is not None:
        entry["speculative"] = {"accept_length": last_spec[0], "accept_rate": last_spec[1]}
    entry["num_total_reqs"] = entry["num_running_reqs"] + entry["num_waiting_reqs"]
    return entry


def loads(rt: Runtime, include: str | None) -> Json:
    wanted = set(SECTIONS) if not include or "all" in include.split(",") else {s.strip() for s in include.split(",")}
    entries = [load(rt, wanted)]
    aggregate = {"total_running_reqs": sum(e["num_running_reqs"] for e in entries),
                 "total_waiting_reqs": sum(e["num_waiting_reqs"] for e in entries),
                 "total_reqs": sum(e["num_total_reqs"] for e in entries),
                 "total_used_tokens": sum(e["num_used_tokens"] for e in entries),
                 "total_tokens": sum(e["num_total_tokens"] for e in entries),
                 "avg_token_usage": round(sum(e["token_usage"] for e in entries) / len(entries), 4),
                 "avg_throughput": round(sum(e["gen_throughput"] for e in entries) / len(entries), 2),
                 "avg_utilization": round(sum(e["utilization"] for e in entries) / len(entries), 4)}
    return {"timestamp": datetime.now(timezone.utc).isoformat(), "version": rt.boot.settings.version,
            "dp_rank_count": len(entries), "loads": entries, "aggregate": aggregate}


def loads_prometheus(rt: Runtime) -> str:
    """``/v1/loads?format=prometheus``: the core fields as ``sglang_<field>`` gauges (underscore prefix)."""
    lines = []
    for name, value in _core(rt).items():
        if name != "dp_rank":
            lines += [f"# HELP sglang_{name} {name.replace('_', ' ')}", f"# TYPE sglang_{name} gauge",
                      f'sglang_{name}{{dp_rank="0"}} {value}']
    return "\n".join(lines) + "\n"


def get_load(rt: Runtime) -> list[Json]:
    """The deprecated ``/get_load`` shape, from the same figures."""
    core = _core(rt)
    return [{"dp_rank": 0, "num_reqs": core["num_running_reqs"] + core["num_waiting_reqs"],
             "num_waiting_reqs": core["num_waiting_reqs"], "num_tokens": core["num_total_tokens"],
             "num_pending_tokens": core["num_total_tokens"] - core["num_used_tokens"], "ts_tic": time.perf_counter()}]


def flush_cache(rt: Runtime) -> bool:
    """Empty the radix cache and the lifetime accept-length average, only while nothing runs or waits."""
    engine = rt.engine
    if engine.running or engine.waiting:
        rt.log.rank(0, f"Cache not flushed because there are pending requests. #queue-req: {len(engine.waiting)}, "
                       f"#running-req: {len(engine.running)}", "warning")
        return False
    engine.seen_prompts.clear()
    engine.cached_states = 0
    engine.stats.cum_accepted = engine.stats.cum_steps = 0
    rt.log.rank(0, "Cache flushed successfully!")
    return True


def model_card(rt: Runtime, model: str) -> tuple[int, Json]:
    """``/v1/models/{model}``: the card of the served model, or 404 for any other name."""
    if model != rt.boot.settings.served_model_name:
        return 404, {"error": {"message": f"The model '{model}' does not exist", "type": "invalid_request_error",
                               "param": "model", "code": "model_not_found"}}
    return 200, {"id": model, "object": "model", "created": int(time.time()), "owned_by": "sglang", "root": model,
                 "parent": None, "max_model_len": rt.boot.context_len}
