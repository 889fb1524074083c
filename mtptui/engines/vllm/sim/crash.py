"""The tracebacks the simulated vLLM prints when a launch or a start fails, shaped like vLLM 0.32.0's.

Frame paths follow a real install and the frames the real server printed here (tests/vllm_real); line numbers
are illustrative, as a parser reads only the first line, the last frame and the exception lines. pydantic's
ValidationError is printed in its own layout: the title, then per entry its location, message, type and input.
"""

from __future__ import annotations

from typing import Any

SITE = "/usr/local/lib/python3.12/dist-packages"
PYDANTIC = "2.14"  # the pydantic of a current vLLM install (its errors link to the docs of that version)
VALIDATION = "pydantic_core._pydantic_core.ValidationError"
SERVE = [
    ("/usr/local/bin/vllm", 8, "<module>", "sys.exit(main())"),
    (f"{SITE}/vllm/entrypoints/cli/main.py", 120, "main", "args.dispatch_function(args)"),
    (f"{SITE}/vllm/entrypoints/cli/serve.py", 156, "cmd", "uvloop.run(run_server(args))"),
    (f"{SITE}/vllm/entrypoints/launchers/api_server/entry.py", 177, "run_server",
     "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)"),
    (f"{SITE}/vllm/entrypoints/launchers/api_server/entry.py", 195, "run_server_worker",
     "async with build_async_engine_client("),
    (f"{SITE}/vllm/entrypoints/launchers/api_server/entry.py", 83, "build_async_engine_client_from_engine_args",
     "vllm_config = engine_args.create_engine_config(usage_context=usage_context)"),
]
CONFIG_FRAMES = {
    "ModelConfig": (2240, "model_config = self.create_model_config()"),
    "SpeculativeConfig": (2594, "speculative_config = self.create_speculative_config("),
    "SchedulerConfig": (2617, "scheduler_config = SchedulerConfig("),
    "CacheConfig": (2262, "cache_config = CacheConfig("),
    "ParallelConfig": (2460, "parallel_config = ParallelConfig("),
}
ENGINE_CORE = [
    (f"{SITE}/vllm/v1/engine/core.py", 1482, "run_engine_core", "engine_core = EngineCoreProc(*args, **kwargs)"),
    (f"{SITE}/vllm/v1/engine/core.py", 1206, "__init__", "super().__init__("),
    (f"{SITE}/vllm/v1/engine/core.py", 150, "__init__", "self._initialize_kv_caches(vllm_config)"),
]
API_FAILED = [
    *SERVE[:5],
    (f"{SITE}/vllm/v1/engine/utils.py", 1431, "wait_for_engine_startup", "raise RuntimeError("),
]
DEAD = "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) " \
       "for the root cause."


def render(frames: list[tuple[str, int, str, str]], last: list[str]) -> list[str]:
    lines = ["Traceback (most recent call last):"]
    for path, number, func, code in frames:
        lines += [f'  File "{path}", line {number}, in {func}', f"    {code}"]
    return lines + last


def _entry(entry: dict[str, Any]) -> list[str]:
    """One pydantic entry: its location, message and type, and its input where the judge knows it (a value of
    the command line; a model validator's input is vLLM's whole config, not known here)."""
    loc = [str(part) for part in entry.get("loc") or []]
    kind = entry.get("type", "value_error")
    value = entry.get("input")
    given = f", input_value={value!r}, input_type={type(value).__name__}" if "input" in entry else ""
    head = [".".join(loc)] if loc else []
    return [*head, f"  {entry.get('msg')} [type={kind}{given}]",
            f"    For further information visit https://errors.pydantic.dev/{PYDANTIC}/v/{kind}"]


def exception_lines(error_class: str | None, message: str | None, errors: list[dict[str, Any]] | None) -> list[str]:
    """The exception as Python prints it at the end of the traceback (pydantic's layout for its errors)."""
    if error_class == "ValidationError":
        lines = [f"{VALIDATION}: {message}"]
        for entry in errors or []:
            lines += _entry(entry)
        return lines
    return [f"{error_class}: {message}" if message else str(error_class)]


def refusal_traceback(error_class: str | None, message: str | None, errors: list[dict[str, Any]] | None) -> list[str]:
    """A launch the engine arguments refuse: `vllm serve`'s frames down to the config class that raised."""
    config = (message or "").rsplit(" for ", 1)[-1] if error_class == "ValidationError" else "SpeculativeConfig"
    number, code = CONFIG_FRAMES.get(config, CONFIG_FRAMES["SpeculativeConfig"])
    frames = [*SERVE, (f"{SITE}/vllm/engine/arg_utils.py", number, "create_engine_config", code)]
    return render(frames, exception_lines(error_class, message, errors))


def engine_core_traceback(exception: str) -> list[str]:
    """What `EngineCore failed to start.` carries: the engine core's frames and the root cause."""
    return render(ENGINE_CORE, [exception])


def api_server_traceback(process: str) -> list[str]:
    """The API server's own traceback after its engine core died during startup (stderr, unprefixed)."""
    return render(API_FAILED, ["RuntimeError: Engine core initialization failed. See root cause above. "
                               f"Failed core proc(s): {{'{process}': 1}}"])

