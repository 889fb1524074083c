"""The tracebacks the simulated server prints when a start fails, shaped like SGLang's.

Frame paths and the exception lines follow a real install; line numbers are illustrative (a parser reads
only the first line and the last). Scheduler failures are logged by every rank as
``Scheduler hit an exception: Traceback ...`` followed by the main process's sigquit line.
"""

from __future__ import annotations

SITE = "/usr/local/lib/python3.12/dist-packages/sglang"
CAPTURE_FAILED_HELP = [
    "Possible solutions:",
    "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)",
    "2. set --cuda-graph-max-bs to a smaller value (e.g., 16)",
    "3. disable torch compile by not using --enable-torch-compile",
    "4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)",
    "Open an issue on GitHub https://github.com/sgl-project/sglang/issues/new/choose ",
]

Frame = tuple[str, int, str, str | None]  # (quoted path, line, function, source line or none)

_LAUNCH: list[Frame] = [
    ('"<frozen runpy>"', 198, "_run_module_as_main", None),
    ('"<frozen runpy>"', 88, "_run_code", None),
    (f'"{SITE}/launch_server.py"', 24, "<module>", "server_args = prepare_server_args(sys.argv[1:])"),
    (f'"{SITE}/srt/server_args.py"', 4712, "prepare_server_args", "return ServerArgs.from_cli_args(raw_args)"),
    (f'"{SITE}/srt/server_args.py"', 4288, "from_cli_args",
     "return cls(**{attr: getattr(args, attr) for attr in attrs})"),
    ('"<string>"', 318, "__init__", None),
    (f'"{SITE}/srt/server_args.py"', 655, "__post_init__", "self._handle_speculative_decoding()"),
]
_SCHEDULER: list[Frame] = [
    (f'"{SITE}/srt/managers/scheduler.py"', 3114, "run_scheduler_process",
     "scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)"),
    (f'"{SITE}/srt/managers/scheduler.py"', 352, "__init__", "self.init_model_worker()"),
    (f'"{SITE}/srt/managers/scheduler.py"', 521, "init_model_worker", "self.tp_worker = TpModelWorker("),
    (f'"{SITE}/srt/managers/tp_worker.py"', 247, "__init__", "self._model_runner = ModelRunner("),
    (f'"{SITE}/srt/model_executor/model_runner.py"', 380, "__init__", "self.initialize(min_per_gpu_memory)"),
]
_PHASE_FRAMES: dict[str, list[Frame]] = {
    "weights": [(f'"{SITE}/srt/model_executor/model_runner.py"', 461, "initialize", "self.load_model()"),
                (f'"{SITE}/srt/model_executor/model_runner.py"', 905, "load_model",
                 "self.model = get_model(")],
    "pool": [(f'"{SITE}/srt/model_executor/model_runner.py"', 537, "initialize", "self.init_memory_pool("),
             (f'"{SITE}/srt/model_executor/model_runner.py"', 1790, "init_memory_pool", "raise RuntimeError(")],
    "capture": [(f'"{SITE}/srt/model_executor/model_runner.py"', 560, "initialize", "self.init_device_graphs()"),
                (f'"{SITE}/srt/model_executor/cuda_graph_runner.py"', 392, "__init__",
                 "raise Exception(")],
    "mamba": [(f'"{SITE}/srt/model_executor/model_runner.py"', 537, "initialize", "self.init_memory_pool("),
              (f'"{SITE}/srt/model_executor/model_runner.py"', 1712, "init_memory_pool", "raise ValueError(")],
}


def _render(frames: list[Frame], last: list[str]) -> list[str]:
    lines = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        lines.append(f"  File {path}, line {line}, in {func}")
        if code:
            lines.append(f"    {code}")
    return lines + last


def launch_traceback(exception_line: str) -> list[str]:
    """A failure while the main process resolves the arguments (before any model is loaded)."""
    frames = list(_LAUNCH)
    if "context_length" in exception_line:
        frames = frames[:3] + [(f'"{SITE}/srt/configs/model_config.py"', 1296, "__init__", "raise ValueError(")]
    elif exception_line.startswith(("AssertionError", "TypeError", "ValueError: Unknown")):
        frames.append((f'"{SITE}/srt/server_args.py"', 1960, "_handle_speculative_decoding", None))
    return _render(frames, [exception_line])


def scheduler_traceback(phase: str, exception_lines: list[str]) -> list[str]:
    """A failure inside a scheduler process at ``phase`` (weights, pool, capture, mamba, draft)."""
    frames = list(_SCHEDULER)
    if phase == "draft":
        frames = frames[:3] + [
            (f'"{SITE}/srt/managers/scheduler.py"', 548, "init_model_worker", "self.draft_worker = DraftWorkerClass("),
            (f'"{SITE}/srt/speculative/eagle_worker_v2.py"', 214, "__init__", "self.draft_worker = TpModelWorker("),
        ] + frames[3:] + _PHASE_FRAMES["weights"]
    else:
        frames += _PHASE_FRAMES.get(phase, [])
    return _render(frames, exception_lines)


def oom_line(need_gb: float, free_gb: float, capacity_gb: float, gpu: int = 0) -> str:
    """PyTorch's CUDA out-of-memory message."""
    in_use = capacity_gb - free_gb
    free = f"{free_gb:.2f} GiB" if free_gb >= 1 else f"{max(free_gb, 0) * 1024:.2f} MiB"
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {need_gb:.2f} GiB. GPU {gpu} has a "
            f"total capacity of {capacity_gb:.2f} GiB of which {free} is free. Including "
            f"non-PyTorch memory, this process has {in_use:.2f} GiB memory in use. Of the allocated memory "
            f"{in_use - 0.6:.2f} GiB is allocated by PyTorch, and 21.36 MiB is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
            "to avoid fragmentation.  See documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
