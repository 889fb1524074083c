"""How the simulated vLLM ends: the engine core's death while serving, and a stop by signal.

Death: a worker's CUDA error (`WorkerProc hit an exception.` with its RuntimeError), the engine core's
`EngineCore encountered a fatal error.`, the API server's `AsyncLLM output_handler failed.` ending in
EngineDeadError; every running request is aborted. Stop: the `[shutdown]` lines vLLM 0.32.0 logs on SIGTERM, in
its order (`mode=abort timeout=0s`, or `mode=drain` with `--shutdown-timeout`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mtptui.engines.vllm.sim import crash, messages as msg
from mtptui.engines.vllm.sim.runtime import VllmRuntime

CUDA_ERROR = ("RuntimeError: CUDA error: an illegal memory access was encountered\n"
              "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
              "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1")
WORKER_FRAMES = [(f"{crash.SITE}/vllm/v1/executor/multiproc_executor.py", 1058, "worker_busy_loop",
                  "output = func(*args, **kwargs)"),
                 (f"{crash.SITE}/vllm/v1/worker/gpu_worker.py", 812, "execute_model",
                  "output = self.model_runner.execute_model(scheduler_output, intermediate_tensors)")]
CORE_FRAMES = [(f"{crash.SITE}/vllm/v1/engine/core.py", 1491, "run_engine_core", "engine_core.run_busy_loop()"),
               (f"{crash.SITE}/vllm/v1/engine/core.py", 1530, "run_busy_loop", "self._process_engine_step()"),
               (f"{crash.SITE}/vllm/v1/executor/multiproc_executor.py", 396, "collective_rpc",
                "raise RuntimeError(f\"Worker failed with error '{e}', please check the stack trace above \"")]
API_FRAMES = [(f"{crash.SITE}/vllm/v1/engine/async_llm.py", 860, "output_handler",
               "outputs = await engine_core.get_output_async()"),
              (f"{crash.SITE}/vllm/v1/engine/core_client.py", 1021, "get_output_async",
               "raise self._format_exception(outputs) from None")]


def engine_died(rt: VllmRuntime) -> None:
    """The engine core dies now: its lines, every request aborted, the server dead."""
    log, tp = rt.log, rt.boot.settings.tensor_parallel_size
    worker = msg.worker(tp - 1, tp)
    log.line(worker, "multiproc_executor.py:1060", "\n".join(["WorkerProc hit an exception.",
                                                             *crash.render(WORKER_FRAMES, CUDA_ERROR.split("\n"))]),
             "ERROR")
    failed = "RuntimeError: Worker failed with error 'CUDA error: an illegal memory access was encountered', please " \
             "check the stack trace above for the root cause"
    log.line(msg.CORE, msg.SOURCES["fatal"], "\n".join(["EngineCore encountered a fatal error.",
                                                       *crash.render(CORE_FRAMES, [failed])]), "ERROR")
    log.line(msg.API, msg.SOURCES["output_handler"], "\n".join(["AsyncLLM output_handler failed.",
                                                               *crash.render(API_FRAMES, [crash.DEAD])]), "ERROR")
    rt.status = "dead"
    rt.engine.stop()


async def shut_down(rt: VllmRuntime, serving: asyncio.Task[Any], signame: str, poll_s: float = 0.05) -> None:
    """vLLM's `[shutdown]` sequence: the engine stops first (aborting its requests, or draining them for up to
    `--shutdown-timeout` seconds), then uvicorn's task is cancelled (the caller shuts the HTTP server down)."""
    timeout = int(rt.boot.settings.non_default.get("shutdown_timeout") or 0)
    mode = "drain" if timeout > 0 else "abort"
    say = rt.log.line
    say(msg.CORE, "core.py:1454", f"[shutdown] EngineCore: trigger received signal={signame}")
    say(msg.API, "launcher.py:254", "[shutdown] API server: shutdown triggered")
    say(msg.API, "launcher.py:270", f"[shutdown] API server: stopping engine client mode={mode} timeout={timeout}s")
    say(msg.CORE, "core.py:1635", f"[shutdown] EngineCore: start mode={mode} timeout={timeout}s")
    deadline = time.monotonic() + timeout
    while (rt.engine.running or rt.engine.waiting) and time.monotonic() < deadline:
        await asyncio.sleep(poll_s)
    rt.engine.stop()
    say(msg.CORE, "core.py:1666", "[shutdown] EngineCore: request processing complete; starting resource teardown")
    say(msg.CORE, "core.py:1499", "[shutdown] EngineCore: exiting busy loop")
    say(msg.API, "core_client.py:770", f"[shutdown] MPClient: start timeout={timeout}s")
    say(msg.API, "core_client.py:777", "[shutdown] MPClient: complete")
    say(msg.API, "launcher.py:279", "[shutdown] API server: engine client stopped")
    say(msg.API, "launcher.py:282", "[shutdown] API server: signalling HTTP server shutdown")
    say(msg.API, "launcher.py:304", "[shutdown] API server: shutting down FastAPI HTTP server")
    serving.cancel()
