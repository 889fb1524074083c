"""The startup log of the simulated vLLM, from the banner to the route list, as a GPU build of 0.32.0 writes it.

The API server logs the banner, the non-default arguments and the model config; the engine core its config,
the KV cache size and the init time; each worker (`Worker`, or `Worker_TP0`... with tensor parallelism) its
rank, the weights, the KV memory and the graph capture. Pacing is realistic for the simulated GPU host (about a
minute for the mission's 27B over two GPUs) and divided by ``--speed``; durations printed stay realistic. A start
that does not fit dies as vLLM's does: the engine core logs `EngineCore failed to start.` with the root cause,
the API server prints its own traceback, and the process exits 1.
"""

from __future__ import annotations

import sys
from typing import Any

from mtptui.engines.vllm.flags.errors import Verdict
from mtptui.engines.vllm.sim import crash, messages as msg
from mtptui.engines.vllm.sim.boot import VllmBoot
from mtptui.engines.vllm.sim.logfmt import VllmLog
from mtptui.engines.vllm.sim.memory import estimated_max_len
from mtptui.engines.vllm.sim.model import served_model
from mtptui.sim.crash import oom_line
from mtptui.sim.logfmt import plain_bar
from mtptui.sim.memory import DRIVER_GB
from mtptui.sim.pacing import Pacer, shard_progress

IMPORTS_S = 9.0  # the API server's imports before the model config
ENGINE_START_S = 7.5  # the engine core and its workers start (imports, NCCL)
SHARD_S = 1.05  # seconds per safetensors shard
PROFILE_S = 4.2  # the profile run and the KV cache allocation
COMPILE_S = 21.0  # torch.compile of the model (not with -O0 or --enforce-eager)
CAPTURE_S = 0.11  # per captured graph size
CAPTURE_SIZES = 67  # mixed prefill-decode, piecewise


class StartupFailed(Exception):
    """The server died during startup; its last words are in the log. ``status`` is the exit status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def dtype_of(boot: VllmBoot) -> str:
    wanted = boot.settings.dtype
    if wanted in ("half", "float16"):
        return "torch.float16"
    if wanted == "float32":
        return "torch.float32"
    return "torch.bfloat16" if wanted == "bfloat16" else boot.settings.model.spec.dtype


def announce(log: VllmLog, model: str, non_default: dict[str, Any]) -> None:
    """The API server's first lines: the banner and the arguments that differ from vLLM's defaults."""
    log.line(msg.API, msg.SOURCES["banner"], msg.banner(model, log.colour))
    log.line(msg.API, msg.SOURCES["args"], f"non-default args: {non_default!r}")


def announce_refused(log: VllmLog, namespace: Any, non_default: dict[str, Any], verdict: Verdict) -> None:
    """What a launch the engine arguments refuse logs first: the banner, the arguments, and the model config's
    lines for the configs built before the one that raised (none for a model vLLM cannot find)."""
    announce(log, str(namespace.model), non_default)
    if verdict.stage == "engine_args":
        return
    model = served_model(str(namespace.model))
    log.line(msg.API, msg.SOURCES["arch"], f"Resolved architecture: {model.architecture}")
    if (verdict.message or "").endswith("for ModelConfig"):
        return
    pairs = 2 if verdict.error_class == "NotImplementedError" else 1  # the MTP draft's own config came first
    for number in range(pairs):
        if number:
            log.line(msg.API, msg.SOURCES["arch"], f"Resolved architecture: {model.architecture}")
        length = namespace.max_model_len or model.max_position
        log.line(msg.API, msg.SOURCES["max_len"], f"Using max model len {length}")


def model_config(boot: VllmBoot, log: VllmLog, max_len: int | None = None) -> None:
    """ModelConfig's lines for the target (and again for an MTP or EAGLE draft's own config)."""
    s = boot.settings
    for warning in s.warnings:
        if warning.startswith("method `"):
            log.line(msg.API, msg.SOURCES["deprecated"], warning, "WARNING")
    log.line(msg.API, msg.SOURCES["arch"], f"Resolved architecture: {s.model.architecture}")
    log.line(msg.API, msg.SOURCES["max_len"], f"Using max model len {max_len or s.max_model_len}")
    if s.spec_method is not None and not s.spec_method.startswith(("ngram", "suffix")):
        log.line(msg.API, msg.SOURCES["arch"], f"Resolved architecture: {s.model.architecture}")
        log.line(msg.API, msg.SOURCES["max_len"], f"Using max model len {max_len or s.max_model_len}")


def engine_line(boot: VllmBoot) -> str:
    s = boot.settings
    model = s.spec_model if s.spec_method not in ("ngram", "ngram_gpu", "suffix") else None
    return msg.engine_config({
        "model": s.model.path, "spec": msg.spec_config(s.spec_method, model, s.spec_tokens), "dtype": dtype_of(boot),
        "max_seq_len": s.max_model_len, "tp": s.tensor_parallel_size, "enforce_eager": s.enforce_eager,
        "kv_cache_dtype": s.kv_cache_dtype, "seed": s.seed, "served": s.served_model_name,
        "prefix_caching": s.enable_prefix_caching})


def workers(boot: VllmBoot) -> list[str]:
    tp = boot.settings.tensor_parallel_size
    return [msg.worker(rank, tp) for rank in range(tp)]


async def start_engine(boot: VllmBoot, log: VllmLog, pace: Pacer) -> None:
    s = boot.settings
    log.line(msg.CORE, msg.SOURCES["engine"], engine_line(boot))
    await pace.sleep(pace.jitter(ENGINE_START_S))
    for rank, name in enumerate(workers(boot)):
        log.line(name, msg.SOURCES["rank"], msg.rank_assigned(rank, s.tensor_parallel_size))
    first = workers(boot)[0]
    log.line(first, msg.SOURCES["load"], f"Starting to load model {s.model.path}...")
    log.line(first, msg.SOURCES["backend"], f"Using FLASH_ATTN attention backend out of potential backends: "
                                            f"{msg.BACKENDS}.")


async def load_weights(boot: VllmBoot, log: VllmLog, pace: Pacer) -> None:
    """The checkpoint shards (one bar, rank 0), then each worker's weights, its draft, its memory."""
    spec, memory = boot.settings.model.spec, boot.memory
    total = spec.shards
    fits = total if memory.failure != "weights" else max(0, int(total * memory.ranks[0].begin / memory.weights_gb))
    elapsed = await shard_progress(pace, log.bar, "Loading safetensors checkpoint shards", total, fits, SHARD_S)
    if memory.failure == "weights":
        free = memory.ranks[0].begin - memory.weights_gb * fits / total
        cause = oom_line(memory.weights_gb / total, free, boot.gpu_mem_gb - DRIVER_GB)
        log.line(workers(boot)[0], "gpu_model_runner.py:5147", f"{msg.WEIGHTS_OOM} (original error: {cause})",
                 "ERROR")
        raise engine_failed(boot, log, cause)
    log.bar_close()
    boot.timings["load_weights"] = elapsed
    for name in workers(boot):
        log.line(name, msg.SOURCES["weights"], f"Loading weights took {elapsed:.2f} seconds")
        if boot.settings.speculative:
            log.line(name, msg.SOURCES["drafter"], "Loading drafter model...")
        log.line(name, msg.SOURCES["loaded"], f"Model loading took {msg.gib(memory.weights_gb)} GiB memory and "
                                              f"{elapsed + 0.41:.6f} seconds")


async def size_cache(boot: VllmBoot, log: VllmLog, pace: Pacer) -> None:
    """The profile run, each worker's KV memory, the engine's cache size (or the start's end)."""
    await pace.sleep(pace.jitter(PROFILE_S))
    memory, s = boot.memory, boot.settings
    if memory.failure == "no_memory":
        raise engine_failed(boot, log, msg.NO_MEMORY)
    for name in workers(boot):
        log.line(name, msg.SOURCES["kv_memory"], f"Available KV cache memory: {msg.gib(memory.kv_gb)} GiB")
    if memory.failure == "too_long":
        estimate = estimated_max_len(memory, s.block_size)
        raise engine_failed(boot, log, msg.too_long(s.max_model_len, memory.needed_gb, memory.kv_gb, estimate))
    log.line(msg.CORE, msg.SOURCES["kv_size"], msg.kv_size(memory.tokens, s.max_model_len, memory.max_concurrency))


async def capture(boot: VllmBoot, log: VllmLog, pace: Pacer) -> float:
    """torch.compile and the CUDA graphs (skipped with --enforce-eager); the compile time."""
    if boot.settings.enforce_eager:
        return 0.0
    compile_s = 0.0 if boot.settings.non_default.get("optimization_level") == "0" else pace.jitter(COMPILE_S)
    await pace.sleep(compile_s)
    elapsed = 0.0
    for desc, sizes in (("mixed prefill-decode, PIECEWISE", CAPTURE_SIZES), ("decode, FULL", 35)):
        text = f"Capturing CUDA graphs ({desc})"
        log.write("\r" + plain_bar(text, 0, sizes, 0.0))
        step = pace.jitter(CAPTURE_S * sizes)
        await pace.sleep(step)
        elapsed += step
        log.write("\r" + plain_bar(text, sizes, sizes, step) + "\n")
    for name in workers(boot):
        log.line(name, msg.SOURCES["graphs"], f"Graph capturing finished in {elapsed:.0f} secs, took "
                                              f"{boot.memory.graphs_gb:.2f} GiB")
    return compile_s


async def run_startup(boot: VllmBoot, log: VllmLog, pace: Pacer) -> None:
    """Banner to `init engine ... took`; raises StartupFailed after logging a crash."""
    announce(log, boot.settings.model.path, boot.settings.non_default)
    await pace.sleep(pace.jitter(IMPORTS_S))
    model_config(boot, log)
    begin = pace.total
    await start_engine(boot, log, pace)
    await load_weights(boot, log, pace)
    await size_cache(boot, log, pace)
    compile_s = await capture(boot, log, pace)
    log.line(msg.CORE, msg.SOURCES["init"], msg.init_engine(pace.total - begin, compile_s))


def serving_lines(boot: VllmBoot, log: VllmLog, url: str, routes: list[tuple[str, str]]) -> None:
    """The API server's lines once the engine is up: tasks, the URL it serves on, its routes."""
    log.line(msg.API, msg.SOURCES["tasks"], "Supported tasks: ['generate']")
    log.line(msg.API, msg.SOURCES["scale_out"], msg.SCALE_OUT)
    log.line(msg.API, msg.SOURCES["template"], msg.TEMPLATE)
    log.line(msg.API, msg.SOURCES["listen"], f"Starting vLLM server on {url}")
    log.line(msg.API, msg.SOURCES["routes"], "Available routes are:")
    for path, methods in routes:
        log.line(msg.API, msg.SOURCES["route"], f"Route: {path}, Methods: {methods}")


def engine_failed(boot: VllmBoot, log: VllmLog, cause: str) -> StartupFailed:
    """The engine core's `failed to start` with its root cause, then the API server's own traceback."""
    lines = crash.engine_core_traceback(cause)
    log.line(msg.CORE, msg.SOURCES["failed"], "\n".join(["EngineCore failed to start.", *lines]), "ERROR")
    sys.stderr.write("\n".join(crash.api_server_traceback(msg.CORE)) + "\n")
    sys.stderr.flush()
    return StartupFailed(1)
