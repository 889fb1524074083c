"""The simulated SGLang server run in-process for the speculation tests: its startup log, a few requests, and what
its /server_info says then; and the demo host with an adaptive known-good profile."""

from __future__ import annotations

import asyncio
import io
import random

import httpx

PROMPT = [{"role": "user", "content": "Write a red-black tree in Python."}]


async def simulate(argv: list[str], version: str, *, acceptance: float = 1.0, requests: int = 3,
                   max_tokens: int = 200) -> tuple[str, dict]:
    """(log text, /server_info) after the startup (paced instantly) and ``requests`` requests one after another.
    Decode steps are as quick as the caller made them (tests patch ``DecodeModel.sample_step``)."""
    from mtptui.sim.api import build_app
    from mtptui.sim.messages import READY
    from mtptui.sim.boot import build_boot
    from mtptui.sim.engine import Engine
    from mtptui.sim.launch import settings_for
    from mtptui.sim.logfmt import LogWriter
    from mtptui.sim.runtime import Runtime
    from mtptui.sim.startup import Pacer, run_startup

    class Instant(Pacer):
        async def sleep(self, seconds: float) -> None:
            self.total += seconds

    settings = settings_for(argv, version)
    settings.acceptance = acceptance
    boot, out = build_boot(settings), io.StringIO()
    log = LogWriter(2, stream=out)
    await run_startup(boot, log, Instant(1.0, random.Random(0)))
    runtime = Runtime(boot, Engine(boot, log, random.Random(0)), log, None, 0, "127.0.0.1", 30000, status="up")
    task = asyncio.create_task(runtime.engine.run())
    log.main(READY)
    body = {"messages": PROMPT, "max_tokens": max_tokens, "temperature": 0.0}
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(runtime)), base_url="http://sim",
                                     timeout=60) as client:
            for _ in range(requests):
                assert (await client.post("/v1/chat/completions", json=body)).status_code == 200
            info = (await client.get("/server_info")).json()
    finally:
        runtime.engine.stop()
        await task
    return out.getvalue(), info


def adaptive_host():
    """The demo host whose known-good profile ``adaptive`` is ``restored`` with --speculative-adaptive."""
    from tests.ui_fixtures.support import demo_host

    host = demo_host()
    restored = host.profile("restored")
    adaptive = restored.model_copy(update={"flags": {**restored.flags, "speculative-adaptive": True},
                                           "note": "restored, with adaptive speculation"})
    return host.model_copy(update={"profiles": {**host.profiles, "adaptive": adaptive}, "known_good": "adaptive"})


ADAPTIVE_LOG = "adaptive-downshift.log"  # in tests/ui_fixtures, with its /server_info beside it (.json)


def adaptive_argv(version: str = "0.5.12.post1") -> list[str]:
    from mtptui.engines.sglang.flags import FlagSet, render_argv

    host = adaptive_host()
    return render_argv(FlagSet.from_profile(host.profile("adaptive"), version))


def record(folder) -> None:
    """Write the recorded fixture: the adaptive profile under a low-acceptance load (acceptance 0.2), decoding in
    real time, its log and its /server_info at the end. ``python -m tests.speculation_support`` rewrites them."""
    import json
    from pathlib import Path

    text, info = asyncio.run(simulate(adaptive_argv(), "0.5.12.post1", acceptance=0.2, requests=3, max_tokens=160))
    Path(folder, ADAPTIVE_LOG).write_text(text, encoding="utf-8")
    Path(folder, ADAPTIVE_LOG).with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    from tests.ui_fixtures.support import FIXTURES

    record(FIXTURES)
