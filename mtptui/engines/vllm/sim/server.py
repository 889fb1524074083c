"""Run the simulated vLLM: hold the port, write the startup log, serve with uvicorn, log every interval, stop.

As `vllm serve` does, the socket is bound before the engine starts (a second instance fails at once) and
uvicorn listens only once the engine is up: no warm-up, `/health` is 200 from the first answer. SIGTERM stops it
with vLLM's `[shutdown]` lines (abort, or a drain of up to `--shutdown-timeout` seconds). When the engine core
dies (POST /sim/engine-death), the log gets vLLM's fatal-error lines, `/health` answers 503 and requests 500, and
the watchdog stops the server 5 s later unless `VLLM_KEEP_ALIVE_ON_ENGINE_DEATH=1`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
import socket
from typing import Iterator

import uvicorn
from starlette.applications import Starlette

from mtptui.engines.vllm.sim.api import build_app
from mtptui.engines.vllm.sim.boot import VllmBoot
from mtptui.engines.vllm.sim.death import engine_died, shut_down
from mtptui.engines.vllm.sim.engine import VllmEngine
from mtptui.engines.vllm.sim.logfmt import VllmLog, uvicorn_log_config
from mtptui.engines.vllm.sim.metrics import VllmMetrics
from mtptui.engines.vllm.sim.routes import ROUTES
from mtptui.engines.vllm.sim.runtime import VllmRuntime
from mtptui.engines.vllm.sim.startup import StartupFailed, run_startup, serving_lines
from mtptui.engines.vllm.sim.stats import DEFAULT_INTERVAL_S, StatLogger
from mtptui.sim.gpu_state import GpuStateWriter
from mtptui.sim.interrupt import unless_stopped
from mtptui.sim.listen import hold_port, start_listening
from mtptui.sim.logfmt import AccessFilter
from mtptui.sim.pacing import Pacer

WATCHDOG_S = 5.0  # VLLM_WATCHDOG_TIME_S


class NoSignalServer(uvicorn.Server):
    """uvicorn without its own signal handling: vLLM's API server takes SIGTERM itself (its shutdown order)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _url(host: str, port: int) -> str:
    return f"http://{host if ':' not in host else f'[{host}]'}:{port}"


def _interval() -> float:
    try:
        return float(os.environ.get("VLLM_LOG_STATS_INTERVAL", DEFAULT_INTERVAL_S)) or DEFAULT_INTERVAL_S
    except ValueError:
        return DEFAULT_INTERVAL_S


async def serve(boot: VllmBoot, *, host: str, port: int, seed: int, speed: float) -> int:
    """Run until SIGTERM; the exit status (1 after a failed start, already logged)."""
    sock = hold_port(host, port)
    gpu_state = GpuStateWriter.from_env(boot)
    gpu_task = asyncio.create_task(gpu_state.run()) if gpu_state else None
    try:
        log = VllmLog()
        try:
            if not await unless_stopped(run_startup(boot, log, Pacer(speed, random.Random(seed)))):
                return 0
        except StartupFailed as failed:
            return failed.status
        return await _serve(boot, log, sock, host, port, seed, gpu_state)
    finally:
        sock.close()
        if gpu_task is not None:
            gpu_task.cancel()
            await asyncio.gather(gpu_task, return_exceptions=True)


def _config(boot: VllmBoot, app: Starlette, host: str, port: int) -> uvicorn.Config:
    s = boot.settings
    config = uvicorn.Config(app, host=host, port=port, log_config=uvicorn_log_config(s.uvicorn_log_level),
                            access_log=s.access_log, timeout_graceful_shutdown=3, lifespan="on", ws="none")
    if s.access_log_exclude:  # --disable-access-log-for-endpoints: exact paths, query strings ignored
        paths = set(s.access_log_exclude)
        logging.getLogger("uvicorn.access").addFilter(AccessFilter(lambda path: path.split("?", 1)[0] in paths))
    return config


async def _serve(boot: VllmBoot, log: VllmLog, sock: socket.socket, host: str, port: int, seed: int,
                 gpu_state: GpuStateWriter | None) -> int:
    logger = StatLogger(log, boot.decode.steps, boot.settings.enable_prefix_caching, _interval())
    metrics = VllmMetrics(boot) if boot.settings.log_stats else None
    engine = VllmEngine(boot, random.Random(seed), logger.iv, metrics)
    rt = VllmRuntime(boot, engine, log, metrics, seed, status="up")
    if gpu_state is not None:
        gpu_state.load = lambda: (len(engine.running), len(engine.waiting))
    loop = asyncio.get_running_loop()
    server = NoSignalServer(_config(boot, build_app(rt, lambda: _die(rt, server)), host, port))
    serving_lines(boot, log, _url(host, port), list(ROUTES))
    start_listening(sock, host, port)
    serving = loop.create_task(server.serve(sockets=[sock]))
    stopping = _stop_on_signals(rt, serving)
    tasks = [loop.create_task(engine.run())]
    if boot.settings.log_stats:
        tasks.append(loop.create_task(_log_stats(logger)))
    try:
        await asyncio.wait({serving})
        if serving.cancelled():  # a signal: vLLM cancels uvicorn's task, then shuts the HTTP server down itself
            await server.shutdown(sockets=[sock])
    finally:
        engine.stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, *stopping, return_exceptions=True)
    return 0


def _stop_on_signals(rt: VllmRuntime, serving: asyncio.Task[None]) -> list[asyncio.Task[None]]:
    """SIGTERM/SIGINT start vLLM's shutdown once (the API server's own handlers); the task it runs in."""
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []

    def on_signal(sig: signal.Signals) -> None:
        if not stopping:
            stopping.append(loop.create_task(shut_down(rt, serving, sig.name)))

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    return stopping


def _die(rt: VllmRuntime, server: uvicorn.Server) -> None:
    """The engine core dies; vLLM's watchdog stops the server 5 s later unless told to keep it alive."""
    engine_died(rt)
    if os.environ.get("VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", "0") in ("0", ""):
        asyncio.get_running_loop().call_later(WATCHDOG_S, setattr, server, "should_exit", True)


async def _log_stats(logger: StatLogger) -> None:
    """`VLLM_LOG_STATS_INTERVAL`: the engine stats lines, every interval."""
    while True:
        await asyncio.sleep(logger.interval_s)
        logger.flush()


__all__ = ["StartupFailed", "serve"]
