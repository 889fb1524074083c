"""Run the simulated server: hold the port, write the startup log, serve with uvicorn, warm up, shut down.

The port is bound (not yet listening) before anything else, so a second instance fails at once; clients
get "connection refused" until uvicorn starts, as with the real server, and 503 from /health until the
warm-up request is done. Once it serves, SIGTERM drains it as its SGLang release does (mtptui.sim.shutdown);
before that, and on SIGINT, it stops at once and frees the port.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import signal
import socket
from types import FrameType

import uvicorn
from starlette.applications import Starlette

from mtptui.sim import messages as msg
from mtptui.sim.api import build_app
from mtptui.sim.boot import Boot
from mtptui.sim.engine import Engine
from mtptui.sim.gpu_state import GpuStateWriter
from mtptui.sim.interrupt import unless_stopped
from mtptui.sim.listen import hold_port, start_listening
from mtptui.sim.logfmt import AccessFilter, LogWriter, uvicorn_log_config
from mtptui.sim.metrics import SimMetrics
from mtptui.sim.runtime import Runtime
from mtptui.sim.shutdown import ShutdownWatch
from mtptui.sim.pacing import Pacer
from mtptui.sim.startup import StartupFailed, run_startup

WARMUP_PROMPT = "The capital city of France is"
WARMUP_TIMEOUT_S = 60.0
UVICORN_START_S = 3.5


class SimUvicorn(uvicorn.Server):
    """uvicorn with SGLang's "Uvicorn running on" line for a pre-bound socket and SGLang's signal handling: a
    SIGTERM once the server serves drains it (mtptui.sim.shutdown), anything else stops it at once."""

    def __init__(self, config: uvicorn.Config, runtime: Runtime) -> None:
        super().__init__(config)
        self.runtime = runtime
        self.watch: ShutdownWatch | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if sockets:
            self._log_started_message(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig == signal.SIGTERM and self.watch is not None and self.runtime.status in ("up", "draining"):
            self.watch.sigterm()
            return
        if self.watch is not None:
            self.watch.ending = True  # a stop at once: its children going with it is no crash
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
        generate = {"text": WARMUP_PROMPT, "sampling_params": {"temperature": 0, "max_new_tokens": 8}}
        await asyncio.wait_for(_ask(host, rt.port, "GET", "/model_info"), WARMUP_TIMEOUT_S)
        await asyncio.wait_for(_ask(host, rt.port, "POST", "/generate", json.dumps(generate)), WARMUP_TIMEOUT_S)
    rt.status = "up"
    rt.boot.timings.tokenizer_e2e = pace.total
    rt.log.main(msg.READY)


async def _ask(host: str, port: int, method: str, path: str, body: str | None = None) -> None:
    """One HTTP/1.1 request to the server itself, its answer read to the end. Not httpx: importing it and
    building its client (an SSL context) took a quarter of a second of every simulated start. This side closes
    first, so the TIME_WAIT is on its own port, never on the server's (which a restart binds again)."""
    reader, writer = await asyncio.open_connection(host, port)
    data = (body or "").encode()
    head = (f"{method} {path} HTTP/1.1\r\nHost: {host if ':' not in host else f'[{host}]'}:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
    try:
        writer.write(head.encode() + data)
        await writer.drain()
        await _read_answer(reader)
    finally:
        writer.close()


async def _read_answer(reader: asyncio.StreamReader) -> None:
    """Read one HTTP/1.1 response: its head, then its body by Content-Length, or chunk by chunk."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
    fields = dict(line.partition(":")[::2] for line in head.split("\r\n")[1:] if ":" in line)
    if "chunked" in fields.get("transfer-encoding", ""):
        while (size := int((await reader.readline()).strip() or b"0", 16)) > 0:
            await reader.readexactly(size + 2)
        await reader.readline()
    else:
        await reader.readexactly(int(fields.get("content-length", "0").strip() or 0))


def _uvicorn_config(rt: Runtime, app: Starlette) -> uvicorn.Config:
    settings = rt.boot.settings
    level = (settings.log_level_http or settings.log_level or "info").lower()
    config = uvicorn.Config(app, host=rt.host, port=rt.port, log_config=uvicorn_log_config(level),
                            timeout_graceful_shutdown=3, lifespan="on", ws="none")
    if settings.access_exclude:  # --uvicorn-access-log-exclude-prefixes
        prefixes = tuple(settings.access_exclude)
        logging.getLogger("uvicorn.access").addFilter(AccessFilter(lambda path: path.startswith(prefixes)))
    return config


async def _startup(boot: Boot, log: LogWriter, pace: Pacer) -> bool:
    """The startup log; False when SIGTERM/SIGINT arrived first."""
    async def log_and_wait() -> None:
        await run_startup(boot, log, pace)
        await pace.sleep(UVICORN_START_S)

    return await unless_stopped(log_and_wait())


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
        start_listening(sock, host, port)
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
    server.watch = ShutdownWatch(rt, pace.speed, stop_server=lambda: setattr(server, "should_exit", True),
                                 before_kill=gpu_state.remove if gpu_state is not None else None)
    tasks = [asyncio.create_task(engine.run()), asyncio.create_task(warmup(rt, server, pace)),
             asyncio.create_task(server.watch.run())]
    try:
        await server.serve(sockets=[sock])
    finally:
        server.watch.close()
        engine.stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return 0


__all__ = ["StartupFailed", "serve", "hold_port"]
