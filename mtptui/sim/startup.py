"""The startup sequence of the simulated server: the log SGLang writes from launch to the capacity line.

Pacing is realistic (about a minute to "ready" for the mission's model) and divided by ``--speed``; the
durations printed inside messages (``elapsed=``, tqdm timers) stay the realistic ones.
"""

from __future__ import annotations

from mtptui.sim import crash, messages as msg
from mtptui.sim.boot import Boot
from mtptui.sim.logfmt import LogWriter, plain_bar
from mtptui.sim.memory import DRIVER_GB, reached
from mtptui.sim.pacing import Pacer, shard_progress

SHARD_S = 1.82  # seconds per safetensors shard, multi-thread loading on this host
DIST_INIT_S = 4.4
CAPTURE_BS_S = 1.25
DRAFT_CAPTURE_BS_S = 0.35
MTP_LOAD_S = 0.19


class StartupFailed(Exception):
    """The server died during startup; its last words are already in the log."""


def server_args_line(boot: Boot) -> str:
    """``server_args=ServerArgs(...)`` with the values after resolution (as SGLang logs it)."""
    from mtptui.sim.info import resolved

    return "server_args=ServerArgs(" + ", ".join(f"{k}={v!r}" for k, v in resolved(boot).items()) + ")"


def fail(log: LogWriter, boot: Boot, phase: str, exception: list[str]) -> StartupFailed:
    """Every rank logs the scheduler exception, then the main process its sigquit line."""
    lines = crash.scheduler_traceback(phase, exception)
    for rank in range(boot.settings.tp_size):
        log.rank(rank, "Scheduler hit an exception: " + lines[0], "error")
        log.write("".join(line + "\n" for line in lines[1:]) + "\n")
    log.main(msg.SIGQUIT, "error")
    return StartupFailed(exception[-1])


async def announce(boot: Boot, log: LogWriter, pace: Pacer) -> None:
    for warning in boot.settings.warnings:  # argument checks warn before the resolved arguments are logged
        log.main(warning, "warning")
    log.main(server_args_line(boot))
    await pace.sleep(5.5)  # tokenizer, detokenizer and scheduler processes start
    begin = msg.dist_init_begin(boot.settings.version)
    if begin:
        log.each_rank(lambda rank: begin)
    elapsed = pace.jitter(DIST_INIT_S)
    await pace.sleep(elapsed)
    ranks = boot.memory.ranks
    log.each_rank(lambda r: msg.dist_init_end(boot.settings.version, elapsed, ranks[r].baseline_gb))


async def load_weights(boot: Boot, log: LogWriter, pace: Pacer) -> None:
    ranks, plan = boot.memory.ranks, boot.memory
    await pace.sleep(0.4)
    log.each_rank(lambda r: msg.weight_begin(ranks[r].begin))
    total = boot.model.shards
    shard_gb = plan.weights_gb / total
    fits = total if plan.failure != "weights" else min(total - 1, int((ranks[0].begin - 0.3) // shard_gb))
    elapsed = await shard_progress(pace, log.bar, "Multi-thread loading shards", total, fits, SHARD_S)
    log.bar_close()
    if plan.failure == "weights":
        raise fail(log, boot, "weights", [crash.oom_line(shard_gb, ranks[0].begin - shard_gb * fits,
                                                          boot.gpu_mem_gb - DRIVER_GB)])
    log.each_rank(lambda r: msg.weight_end(elapsed + 0.3, boot.model.arch, ranks[r].after_weights, plan.weights_gb))
    boot.timings.load_weight = elapsed + 0.3


def check_hybrid_strategy(boot: Boot, log: LogWriter) -> None:
    """0.5.12.post1: speculative decoding on a hybrid model with radix cache needs extra_buffer."""
    s = boot.settings
    if (boot.model.hybrid and s.speculative and not s.disable_radix_cache and s.version != "0.5.23"
            and s.mamba_strategy == "no_buffer"):
        text = ("ValueError: Speculative decoding for {arch} is not compatible with radix cache when using "
                "--mamba-scheduler-strategy no_buffer.To use radix cache with speculative decoding, please use "
                "--mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1.")
        raise fail(log, boot, "mamba", [text.format(arch=boot.model.arch)])


async def allocate_pools(boot: Boot, log: LogWriter, pace: Pacer) -> None:
    plan, version = boot.memory, boot.settings.version
    await pace.sleep(0.9)
    boot.timings.kv_cache_allocation = 0.9
    if plan.failure == "pool":
        raise fail(log, boot, "pool", ["RuntimeError: Not enough memory. Please try to increase "
                                       "--mem-fraction-static. Current value: "
                                       f"mem_fraction_static={boot.mem_fraction}"])
    if not msg.new_format(version):
        log.rank(0, f"Using KV cache dtype: {boot.kv_dtype}")
    for rank in plan.ranks:
        if plan.mamba is not None:
            log.rank(rank.rank, msg.mamba_cache(plan.mamba, boot.settings.speculative))
        log.rank(rank.rank, msg.kv_cache(version, boot.kv_dtype, plan.tokens, plan.k_gb))
        log.rank(rank.rank, msg.pool_end(reached(rank.after_pools)))


async def capture_graphs(boot: Boot, log: LogWriter, pace: Pacer) -> None:
    if not boot.capture_bs:
        return
    plan, version = boot.memory, boot.settings.version
    spec = boot.settings.speculative
    role, per_req = ("target verify", boot.settings.spec_draft_tokens) if spec else ("target decode", 1)
    log.each_rank(lambda r: msg.capture_begin(version, role, reached(plan.ranks[r].after_pools), per_req,
                                                        boot.capture_bs))
    if "capture_bs" in boot.surface.texts:  # 0.5.12: the graph runner lists its batch sizes, on rank 0
        log.rank(0, boot.surface.text("capture_bs", boot.capture_bs))
    elapsed = await _capture_bar(boot, log, pace)
    boot.timings.cuda_graph["target_verify" if spec else "decode"] = elapsed
    if plan.failure == "capture":
        raise fail(log, boot, "capture", [
            "Exception: Capture cuda graph failed: " + crash.oom_line(0.5, reached(plan.ranks[0].after_capture),
                                                                      boot.gpu_mem_gb - DRIVER_GB).split(": ", 1)[1],
            *crash.CAPTURE_FAILED_HELP])
    log.each_rank(lambda r: msg.capture_end(version, role, elapsed, plan.ranks[r].target_graph_gb,
                                            reached(plan.ranks[r].after_capture), boot.capture_bs))


async def _capture_bar(boot: Boot, log: LogWriter, pace: Pacer) -> float:
    rank0, sizes = boot.memory.ranks[0], list(reversed(boot.capture_bs))
    pools = reached(rank0.after_pools)
    drop = (pools - (rank0.after_capture or pools)) / len(sizes)
    elapsed = 0.0
    log.bar(plain_bar("", 0, len(sizes), 0.0))
    for index, bs in enumerate(sizes):
        desc = msg.capture_desc(bs, pools - drop * index)
        log.bar(plain_bar(desc, index, len(sizes), elapsed))
        step = pace.jitter(CAPTURE_BS_S)
        await pace.sleep(step)
        elapsed += step
        log.bar(plain_bar(desc, index + 1, len(sizes), elapsed))
    log.bar_close()
    return elapsed + 0.4


async def load_draft(boot: Boot, log: LogWriter, pace: Pacer) -> None:
    """The MTP head (or draft model): weights, its KV pool and its graphs."""
    if not boot.settings.speculative:
        return
    plan, ranks, version = boot.memory, boot.memory.ranks, boot.settings.version
    draft_arch = boot.model.mtp_arch or f"{boot.model.arch}MTP"
    await pace.sleep(0.4)
    log.each_rank(lambda r: msg.weight_begin(reached(ranks[r].after_capture)))
    await pace.sleep(MTP_LOAD_S)
    if plan.failure == "draft" and reached(ranks[0].after_draft_weights) < 0.15:
        raise fail(log, boot, "draft", [crash.oom_line(plan.draft_weights_gb, reached(ranks[0].after_capture),
                                                       boot.gpu_mem_gb - DRIVER_GB)])
    log.each_rank(lambda r: msg.weight_end(MTP_LOAD_S, draft_arch, reached(ranks[r].after_draft_weights),
                                           plan.draft_weights_gb))
    boot.timings.load_weight += MTP_LOAD_S
    await pace.sleep(0.3)
    for rank in ranks:
        log.rank(rank.rank, msg.kv_cache(version, boot.kv_dtype, plan.tokens, plan.draft_k_gb))
        log.rank(rank.rank, msg.pool_end(reached(rank.after_draft_pool)))
    await _capture_draft(boot, log, pace)


async def _capture_draft(boot: Boot, log: LogWriter, pace: Pacer) -> None:
    """The draft worker's graphs, logged on rank 0 only (``log_info_on_rank0``); 0.5.12 captures draft decode
    only with more than one speculative step."""
    if not boot.capture_bs:
        return
    s, rank0, bs = boot.settings, boot.memory.ranks[0], boot.capture_bs
    stages: tuple[tuple[str, int, float], ...] = (("draft decode", s.spec_topk, 0.6),
                                                  ("draft extend", s.spec_draft_tokens, 0.4))
    if not msg.new_format(s.version) and s.spec_steps <= 1:
        stages = stages[1:]
    avail = reached(rank0.after_draft_pool)
    for role, per_req, share in stages:
        log.rank(0, msg.capture_begin(s.version, role, avail, per_req, bs))
        elapsed = pace.jitter(DRAFT_CAPTURE_BS_S * len(bs))
        await pace.sleep(elapsed)
        boot.timings.cuda_graph[role.replace(" ", "_")] = elapsed
        usage = rank0.draft_graph_gb * share
        avail -= usage
        log.rank(0, msg.capture_end(s.version, role, elapsed, usage, avail, bs))


async def build_adaptive(boot: Boot, log: LogWriter, pace: Pacer) -> None:
    """The worker's adaptive controller (rank 0): its first line, then a runtime state (the graphs of every
    stage) for each other candidate; a config file the worker cannot use kills it (0.5.12.post1 reads it here)."""
    s = boot.settings
    if not (s.speculative and s.adaptive):
        return
    start = s.adaptive_start
    if start is None:
        raise fail(log, boot, "adaptive", [s.adaptive_error or "FileNotFoundError: [Errno 2] No such file or "
                                           f"directory: {s.resolved_args.get('speculative_adaptive_config')!r}"])
    if start.added:
        log.rank(0, boot.surface.text("adaptive_added", start.steps, [c for c in start.candidates if c != start.steps]))
    first = start.slots[0]
    log.rank(0, boot.surface.text("adaptive_init", start.steps if start.steps in first.candidates else
                                  first.candidates[len(first.candidates) // 2], list(first.candidates)))
    for steps in start.candidates:
        if steps != start.steps:
            elapsed = pace.jitter(DRAFT_CAPTURE_BS_S * max(len(boot.capture_bs), 1))
            await pace.sleep(elapsed)
            log.rank(0, boot.surface.text("adaptive_built", steps, elapsed, 0.02 * len(boot.capture_bs)))


async def run_startup(boot: Boot, log: LogWriter, pace: Pacer) -> None:
    """Launch to capacity line; raises StartupFailed after logging a crash."""
    await announce(boot, log, pace)
    await load_weights(boot, log, pace)
    check_hybrid_strategy(boot, log)
    await allocate_pools(boot, log, pace)
    await capture_graphs(boot, log, pace)
    await load_draft(boot, log, pace)
    if boot.memory.failure == "draft":
        raise fail(log, boot, "capture", ["Exception: Capture cuda graph failed: CUDA out of memory.",
                                          *crash.CAPTURE_FAILED_HELP])
    await build_adaptive(boot, log, pace)
    await pace.sleep(0.4)
    boot.timings.scheduler_e2e = pace.total
    log.rank(0, msg.capacity(boot.memory.tokens, boot.chunked_prefill, boot.settings.max_prefill_tokens,
                             boot.max_running, boot.context_len, reached(boot.memory.ranks[0].final)))
