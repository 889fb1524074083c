"""Bodies of ``/server_info``, ``/model_info`` and ``/v1/models`` (sglang-log-formats.md §11)."""

from __future__ import annotations

import shlex
import time

from mtptui.sim.runtime import Runtime


def _memory_usage(rt: Runtime) -> dict:
    boot, plan = rt.boot, rt.boot.memory
    rank0 = plan.ranks[0]
    weight = plan.weights_gb + plan.draft_weights_gb
    kvcache = 2 * (plan.k_gb + plan.draft_k_gb) + (plan.mamba.total_gb if plan.mamba else 0.0)
    graph = rank0.target_graph_gb + rank0.draft_graph_gb
    usage = {"weight": round(weight, 2), "kvcache": round(kvcache, 2), "token_capacity": plan.tokens,
             "graph": round(graph, 2)}
    if boot.settings.version == "0.5.23":
        usage.update(startup_available=round(rank0.final or 0.0, 2), token_capacity_swa=0,
                     graph={"decode": round(graph, 2)})
    return usage


def resolved_args(rt: Runtime) -> dict:
    """Every ServerArgs field after resolution: what the server actually runs with."""
    s, boot = rt.boot.settings, rt.boot
    args = dict(s.resolved_args)
    args.update(
        model_path=s.model_path, tokenizer_path=args.get("tokenizer_path") or s.model_path,
        served_model_name=s.served_model_name, host=rt.host, port=rt.port, tp_size=s.tp_size,
        mem_fraction_static=boot.mem_fraction, context_length=args.get("context_length"),
        chunked_prefill_size=boot.chunked_prefill, max_running_requests=boot.max_running,
        cuda_graph_max_bs=max(boot.capture_bs) if boot.capture_bs else None,
        random_seed=args.get("random_seed") if args.get("random_seed") is not None else rt.seed,
    )
    if s.speculative:
        args.update(speculative_algorithm=s.spec_algorithm, speculative_num_steps=s.spec_steps,
                    speculative_eagle_topk=s.spec_topk, speculative_num_draft_tokens=s.spec_draft_tokens)
    for key in ("mamba_scheduler_strategy", "mamba_radix_cache_strategy"):
        if key in args:
            args[key] = s.mamba_strategy
    if "mamba_full_memory_ratio" in args:
        args["mamba_full_memory_ratio"] = s.mamba_ratio
    return args


def reported_version(rt: Runtime) -> str:
    """The simulated SGLang release, or $MTPTUI_SIM_VERSION: lets a test play a server that reports anything."""
    return rt.boot.settings.env.get("MTPTUI_SIM_VERSION") or rt.boot.settings.version


def server_info(rt: Runtime) -> dict:
    args = resolved_args(rt)
    engine = rt.engine
    internal = {**args, "world_size": rt.boot.settings.tp_size, "startup_time": rt.started_at,
                "effective_max_running_requests_per_dp": rt.boot.max_running,
                "last_gen_throughput": engine.stats.last_gen_throughput, "memory_usage": _memory_usage(rt)}
    if rt.boot.settings.speculative:
        internal["avg_spec_accept_length"] = engine.stats.avg_spec_accept_length
    return {
        **args,
        "launch_command": "python3 -m sglang.launch_server " + shlex.join(rt.boot.settings.argv),
        "max_total_num_tokens": rt.boot.memory.tokens,
        "max_req_input_len": min(rt.boot.context_len - 1, rt.boot.memory.tokens - 1),
        "internal_states": [internal],
        "version": reported_version(rt),
        "startup_time": rt.started_at,
        "frontend": "python",
    }


def model_info(rt: Runtime) -> dict:
    s, model = rt.boot.settings, rt.boot.model
    info = {
        "model_path": s.model_path, "tokenizer_path": s.model_path, "is_generation": True,
        "preferred_sampling_params": None, "weight_version": "default", "has_image_understanding": False,
        "has_audio_understanding": False, "model_type": model.model_type, "architectures": [model.arch],
    }
    if s.version == "0.5.23":
        info.update(served_model_name=s.served_model_name, reasoning_parser=s.reasoning_parser,
                    tool_call_parser=s.tool_call_parser, load_format="auto", disaggregation_mode="null")
    return info


def models(rt: Runtime) -> dict:
    name = rt.boot.settings.served_model_name
    card = {"id": name, "object": "model", "created": int(time.time()), "owned_by": "sglang", "root": name,
            "parent": None, "max_model_len": rt.boot.context_len}
    return {"object": "list", "data": [card]}
