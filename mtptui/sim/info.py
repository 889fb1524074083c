"""Bodies of ``/server_info``, ``/model_info`` and ``/v1/models`` (sglang-log-formats.md §11)."""

from __future__ import annotations

import time

from mtptui.sim.boot import Boot
from mtptui.sim.jsonbody import Json
from mtptui.sim.runtime import Runtime


GRAPH_PHASES = ("prefill", "decode", "target_verify", "draft_prefill", "draft_decode", "draft_extend")


def _graph_phases(values: dict[str, float]) -> dict[str, float]:
    """0.5.23's per-phase dicts (graph memory, capture time): every phase, rounded to 3 decimals."""
    return {phase: round(values.get(phase, 0.0), 3) for phase in GRAPH_PHASES}


def _graph_memory(rt: Runtime) -> dict[str, float]:
    rank0, spec = rt.boot.memory.ranks[0], rt.boot.settings.speculative
    return {"target_verify" if spec else "decode": rank0.target_graph_gb,
            "draft_decode": rank0.draft_graph_gb * 0.6, "draft_extend": rank0.draft_graph_gb * 0.4}


def _memory_usage(rt: Runtime) -> Json:
    plan, rank0 = rt.boot.memory, rt.boot.memory.ranks[0]
    weight = plan.weights_gb + plan.draft_weights_gb
    kvcache = 2 * (plan.k_gb + plan.draft_k_gb) + (plan.mamba.total_gb if plan.mamba else 0.0)
    if rt.boot.settings.version == "0.5.12.post1":
        return {"weight": round(weight, 2), "kvcache": round(kvcache, 2), "token_capacity": plan.tokens,
                "graph": round(rank0.target_graph_gb + rank0.draft_graph_gb, 2)}
    return {"weight": round(weight, 3), "kvcache": round(kvcache, 3), "startup_available": round(rank0.final or 0.0, 3),
            "token_capacity": plan.tokens, "token_capacity_swa": None, "graph": _graph_phases(_graph_memory(rt))}


def startup_time(rt: Runtime, tokenizer: bool) -> Json:
    """0.5.23's startup durations in seconds (not a timestamp); the engine's adds the tokenizer's own."""
    t = rt.boot.timings
    out: Json = {"load_weight": t.load_weight, "kv_cache_allocation": t.kv_cache_allocation,
                 "scheduler_e2e": t.scheduler_e2e, "cuda_graph": _graph_phases(t.cuda_graph)}
    if tokenizer:
        out["tokenizer_e2e"] = t.tokenizer_e2e if t.tokenizer_e2e is not None else t.scheduler_e2e
    return out


def resolved(boot: Boot, host: str | None = None, port: int | None = None,
             seed: int | None = None) -> dict[str, object]:
    """Every ServerArgs field after resolution (NEXTN as EAGLE, sizes SGLang chose): what the server runs with.
    The ``server_args=`` log line and /server_info both show these."""
    s = boot.settings
    args = dict(s.resolved_args)
    args.update(
        model_path=s.model_path, tokenizer_path=args.get("tokenizer_path") or s.model_path,
        served_model_name=s.served_model_name, tp_size=s.tp_size,
        mem_fraction_static=boot.mem_fraction, context_length=args.get("context_length"),
        chunked_prefill_size=boot.chunked_prefill, max_running_requests=boot.max_running,
        cuda_graph_max_bs=max(boot.capture_bs) if boot.capture_bs else None,
    )
    args.update({k: v for k, v in (("host", host), ("port", port)) if v is not None})
    if args.get("random_seed") is None and seed is not None:
        args["random_seed"] = seed
    if s.speculative:
        args.update(speculative_algorithm=s.spec_algorithm, speculative_num_steps=s.spec_steps,
                    speculative_eagle_topk=s.spec_topk, speculative_num_draft_tokens=s.spec_draft_tokens)
    if "speculative_adaptive" in args:
        args["speculative_adaptive"] = s.adaptive
    if s.version == "0.5.12.post1" and s.speculative and s.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE") and \
            (s.spec_topk > 1 or s.env.get("SGLANG_ENABLE_SPEC_V2", "1").strip().lower() in ("0", "false")):
        args["disable_overlap_schedule"] = True  # spec v1 (sglang-flags.md §2.3)
    for key in ("mamba_scheduler_strategy", "mamba_radix_cache_strategy"):
        if key in args:
            args[key] = s.mamba_strategy
    if "mamba_full_memory_ratio" in args:
        args["mamba_full_memory_ratio"] = s.mamba_ratio
    return args


def resolved_args(rt: Runtime) -> dict[str, object]:
    return resolved(rt.boot, rt.host, rt.port, rt.seed)


def reported_version(rt: Runtime) -> str:
    """The simulated SGLang release, or $MTPTUI_SIM_VERSION: lets a test play a server that reports anything."""
    return rt.boot.settings.env.get("MTPTUI_SIM_VERSION") or rt.boot.settings.version


def _internal_state(rt: Runtime, args: dict[str, object]) -> dict[str, object]:
    engine, new = rt.engine, rt.boot.settings.version != "0.5.12.post1"
    state = dict(args)
    if rt.boot.settings.speculative:  # the scheduler's own server args: an adaptive switch writes into them
        state.update(speculative_num_steps=rt.boot.decode.steps,
                     speculative_num_draft_tokens=rt.boot.decode.draft_tokens)
    if new:
        state.update(world_size=rt.boot.settings.tp_size, startup_time=startup_time(rt, False))
    state.update(effective_max_running_requests_per_dp=rt.boot.max_running,
                 last_gen_throughput=engine.stats.last_gen_throughput, memory_usage=_memory_usage(rt))
    if engine.stats.avg_spec_accept_length is not None:  # absent until the first decode log interval
        state["avg_spec_accept_length"] = engine.stats.avg_spec_accept_length
    return state


def server_info(rt: Runtime) -> Json:
    """The version's /server_info: server args, scheduler info, internal states, version (and 0.5.23's extras)."""
    args, boot = resolved_args(rt), rt.boot
    scheduler: Json = {"status": "ready", "max_total_num_tokens": boot.memory.tokens,
                       "max_req_input_len": min(boot.context_len - 1, boot.memory.tokens - 1) - 5}
    if boot.settings.version == "0.5.12.post1":
        return {**args, **scheduler, "internal_states": [_internal_state(rt, args)], "version": reported_version(rt)}
    scheduler.update(startup_time=startup_time(rt, False), hicache_object_layout=None)
    return {**args, "launch_command": " ".join(boot.settings.argv), **scheduler, "kv_events": None,
            "startup_time": startup_time(rt, True), "internal_states": [_internal_state(rt, args)],
            "version": reported_version(rt), "frontend": "python"}


def model_info(rt: Runtime) -> Json:
    s, model = rt.boot.settings, rt.boot.model
    info: Json = {
        "model_path": s.model_path, "tokenizer_path": s.model_path, "is_generation": True,
        "preferred_sampling_params": None, "weight_version": "default", "has_image_understanding": False,
        "has_audio_understanding": False, "model_type": model.model_type, "architectures": [model.arch],
    }
    if s.version == "0.5.23":
        info.update(served_model_name=s.served_model_name, reasoning_parser=s.reasoning_parser,
                    tool_call_parser=s.tool_call_parser, load_format="auto", disaggregation_mode="null")
    return info


def models(rt: Runtime) -> Json:
    name = rt.boot.settings.served_model_name
    card = {"id": name, "object": "model", "created": int(time.time()), "owned_by": "sglang", "root": name,
            "parent": None, "max_model_len": rt.boot.context_len}
    return {"object": "list", "data": [card]}
