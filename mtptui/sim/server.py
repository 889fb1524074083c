"""Run the simulated server: hold the port, write the startup log, serve with uvicorn, warm up, shut down.

The port is bound (not yet listening) before anything else, so a second instance fails at once; clients
get "connection refused" until uvicorn starts, as with the real server, and 503 from /health until the
warm-up request is done. SIGTERM and SIGINT stop everything cleanly and free the port.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import socket

import httpx
import uvicorn

from mtptui.errors import UserError
from mtptui.sim import messages as msg
from mtptui.sim.api import build_app
from mtptui.sim.boot import Boot
from mtptui.sim.engine import Engine
from mtptui.sim.gpu_state import GpuStateWriter
from mtptui.sim.logfmt import LogWriter, uvicorn_log_config
from mtptui.sim.metrics import SimMetrics
from mtptui.sim.runtime import Runtime
from mtptui.sim.startup import Pacer, StartupFailed, run_startup

WARMUP_PROMPT = "The capital city of France is"
UVICORN_START_S = 3.5


def port_taken(host: str, port: int) -> UserError:
    return UserError(f"cannot listen on {host}:{port}: the port is already in use")


def hold_port(host: str, port: int) -> socket.socket:
    """Bind the server socket now (listening starts with uvicorn); a taken port is a UserError.

    Created with ``IPPROTO_TCP`` as ``loop.create_server`` does: asyncio sets TCP_NODELAY only on sockets whose
    ``proto`` says TCP, and an accepted socket inherits it. With proto 0 the first small write after the
    headers (the first SSE chunk) waited for the client's delayed ACK, ~20-40 ms on every kept-alive request.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48):  # EADDRINUSE on Linux / macOS
            raise port_taken(host, port) from None
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock


class _AccessFilter(logging.Filter):
    """``--uvicorn-access-log-exclude-prefixes``: drop access lines for these paths."""

    def __init__(self, prefixes: list[str]) -> None:
        super().__init__()
        self.prefixes = tuple(prefixes)

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        path = str(args[2]) if len(args) > 2 else ""
        return not (self.prefixes and path.startswith(self.prefixes))


class SimUvicorn(uvicorn.Server):
    """uvicorn with SGLang's "Uvicorn running on" line for a pre-bound socket and a clean signal exit."""

    def __init__(self, config: uvicorn.Config, runtime: Runtime) -> None:
        super().__init__(config)
        self.runtime = runtime

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        if sockets:
            self._log_started_message(sockets)

    def handle_exit(self, sig, frame) -> None:
        self.should_exit = True
        self.runtime.status = "stopping"
        self.runtime.engine.stop()


async def warmup(rt: Runtime, server: SimUvicorn, pace: Pacer) -> None:
    """SGLang's own warm-up: GET /model_info, a short /generate, then the ready line."""
    while not server.started:
        await asyncio.sleep(0.01)
    if not rt.boot.settings.skip_warmup:
        await pace.sleep(1.0)
        host = "127.0.0.1" if rt.host in ("0.0.0.0", "") else ("::1" if rt.host == "::" else rt.host)
        base = f"http://{host if ':' not in host else f'[{host}]'}:{rt.port}"
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            await client.get("/model_info")
            await client.post("/generate", json={"text": WARMUP_PROMPT,
                                                 "sampling_params": {"temperature": 0, "max_new_tokens": 8}})
    rt.status = "up"
    rt.boot.timings["tokenizer_e2e"] = pace.total
    rt.log.main(msg.READY)


def _uvicorn_config(rt: Runtime, app) -> uvicorn.Config:
    settings = rt.boot.settings
    level = (settings.log_level_http or settings.log_level or "info").lower()
    config = uvicorn.Config(app, host=rt.host, port=rt.port, log_config=uvicorn_log_config(level),
                            timeout_graceful_shutdown=3, lifespan="on", ws="none")
    if settings.access_exclude:
        logging.getLogger("uvicorn.access").addFilter(_AccessFilter(settings.access_exclude))
    return config


async def _startup(boot: Boot, log: LogWriter, pace: Pacer) -> bool:
    """The startup log; False when SIGTERM/SIGINT arrived first."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, task.cancel)
    try:
        await run_startup(boot, log, pace)
        await pace.sleep(UVICORN_START_S)
        return True
    except asyncio.CancelledError:
        return False
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)


async def serve(boot: Boot, *, host: str, port: int, seed: int, speed: float) -> int:
    """Run until SIGTERM; 0 on a clean stop. Raises StartupFailed (already logged) or UserError."""
    sock = hold_port(host, port)
    gpu_state = GpuStateWriter.from_env(boot)  # what the stand-in nvidia-smi shows, when asked for
    gpu_task = asyncio.create_task(gpu_state.run()) if gpu_state else None
    try:
        log = LogWriter(boot.settings.tp_size, log_ms=os.environ.get("SGLANG_LOG_MS") == "1",
                        level=boot.settings.log_level)
        pace = Pacer(speed, random.Random(seed))
        if not await _startup(boot, log, pace):
            return 0
        try:
            sock.listen(2048)
        except OSError:
            raise port_taken(host, port) from None
        return await _serve(boot, log, pace, sock, host, port, seed, gpu_state)
    finally:
        sock.close()
        if gpu_task is not None:
            gpu_task.cancel()
            await asyncio.gather(gpu_task, return_exceptions=True)


async def _serve(boot: Boot, log: LogWriter, pace: Pacer, sock: socket.socket, host: str, port: int,
                 seed: int, gpu_state: GpuStateWriter | None = None) -> int:
    metrics = SimMetrics(boot.settings.served_model_name, boot.surface) if boot.settings.enable_metrics else None
    engine = Engine(boot, log, random.Random(seed), metrics)
    rt = Runtime(boot, engine, log, metrics, seed, host, port)
    if gpu_state is not None:
        gpu_state.load = lambda: (len(engine.running), len(engine.waiting))
    server = SimUvicorn(_uvicorn_config(rt, build_app(rt)), rt)
    tasks = [asyncio.create_task(engine.run()), asyncio.create_task(warmup(rt, server, pace))]
    try:
        await server.serve(sockets=[sock])
    finally:
        engine.stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return 0


__all__ = ["StartupFailed", "serve", "hold_port"]
