"""A plain restart of one replica behind the real gateway, under a steady streamed load: requests sent, whole,
cut and failed (the "before" figure of a drain-aware restart; everything on loopback).

    .venv/bin/python benchmarks/gateway_restart.py [--mode kill|term-group|term] [--clients 8] [--runs 3]

Two simulated 0.5.12.post1 replicas (the mission's known-good profile) behind ``smg launch`` (tests/gateway_lab.py)
with ``--policy round_robin`` (its default, cache_aware, sends a few clients' requests all to one worker until the
loads differ by 64 requests), ``--clients`` streaming chats through the gateway (tests/stream_load.py). After
``--settle`` seconds one replica is stopped and started again on its port:

- ``kill``: SIGKILL (a crash, an OOM kill);
- ``term-group``: SIGTERM to the server and its children at once: what ``systemctl restart`` does with the
  default ``KillMode=control-group``, and mtptui's process manager (TERM to the process group);
- ``term``: SIGTERM to the server alone (``kill PID``, ``KillMode=mixed``): SGLang's own drain, which waits for
  every request the server holds, new ones included: under a gateway that keeps routing to it, it ends only at
  ``--stop-timeout`` (systemd's TimeoutStopSec, 90 s by default), with SIGKILL;
- ``drained``: the gateway steps first, with mtptui's gateway client (a preview of the drain-aware restart):
  remove the worker (DELETE, until the gateway no longer lists it), wait until the server's own count of
  requests (``/v1/loads``: running and waiting) is zero, then ``term-group``, start it again, add it back (POST,
  until ``ready``).

The load runs on until the gateway lists the replica ``ready`` again plus ``--after`` seconds; every request of
the run is counted (before, during and after the restart). The gateway is never told anything: this is the
restart without the gateway steps.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.gateway_lab import gateway_rig, wait_workers  # noqa: E402
from tests.simserver import MISSION_MODEL, READY_LINE, launch_sim, profile_argv, profile_env, version_args  # noqa: E402
from tests.stream_load import StreamLoad  # noqa: E402


def stop(sim, mode: str, stop_timeout_s: float) -> bool:
    """Stop the replica as ``mode`` says; after ``stop_timeout_s`` SIGKILL, as systemd does after TimeoutStopSec
    (True when it had to)."""
    if mode == "kill":
        sim.proc.kill()
    elif mode == "term":
        sim.proc.send_signal(signal.SIGTERM)
    else:
        children = [int(p) for p in Path(f"/proc/{sim.proc.pid}/task/{sim.proc.pid}/children").read_text().split()]
        for pid in [sim.proc.pid, *children]:
            os.kill(pid, signal.SIGTERM)
    try:
        sim.proc.wait(timeout=stop_timeout_s)
        return False
    except subprocess.TimeoutExpired:
        sim.proc.kill()
        sim.proc.wait(timeout=30)
        return True


def _held(sim) -> int:
    """Requests the server holds, running and waiting, by its own count."""
    import httpx

    aggregate = httpx.get(sim.url + "/v1/loads", timeout=10).json()["aggregate"]
    return int(aggregate["total_running_reqs"]) + int(aggregate["total_waiting_reqs"])


def take_out(gateway_url: str, sim, timeout_s: float = 120.0) -> float:
    """The gateway steps before a stop: remove the worker, then wait until the server holds no request."""
    import asyncio

    from mtptui.gateway.client import Gateway
    from mtptui.gateway.match import find_worker

    async def remove() -> None:
        async with Gateway(gateway_url, poll_s=0.2) as gateway:
            await gateway.remove(find_worker(await gateway.workers(), gateway_url, worker_url=sim.url))
    started = time.monotonic()
    asyncio.run(remove())
    while _held(sim) and time.monotonic() - started < timeout_s:
        time.sleep(0.2)
    return time.monotonic() - started


def put_back(gateway_url: str, sim) -> None:
    import asyncio

    from mtptui.gateway.client import Gateway

    async def add() -> None:
        async with Gateway(gateway_url, poll_s=0.2) as gateway:
            await gateway.add(sim.url)
    asyncio.run(add())


def one_run(mode: str, clients: int, max_tokens: int, settle_s: float, after_s: float, stop_timeout_s: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="gateway-restart-") as tmp, \
            gateway_rig(Path(tmp), gateway_args=("--policy", "round_robin")) as rig:
        victim = rig.sims[0]
        with StreamLoad(rig.url, clients=clients, max_tokens=max_tokens, model=MISSION_MODEL) as load:
            time.sleep(settle_s)
            stopped_at = time.monotonic()
            drain_s = take_out(rig.url, victim) if mode == "drained" else None
            killed = stop(victim, "term-group" if mode == "drained" else mode, stop_timeout_s)
            stopped = time.monotonic() - stopped_at
            again = launch_sim(Path(tmp), profile_argv("restored"), port=victim.port, env=profile_env("restored"),
                               sim_args=version_args("0.5.12.post1"))
            rig.sims[0] = again  # stopped by the rig at the end
            again.wait_for(READY_LINE, 60)
            up = time.monotonic() - stopped_at
            if mode == "drained":
                put_back(rig.url, again)
            listed = wait_workers(rig.url, {again.url: "ready"}, timeout=120)
            ready = time.monotonic() - stopped_at
            time.sleep(after_s)
        tally = load.tally()  # every request of the run: before, during and after the restart
    errors = sorted({o.error for o in tally.outcomes if o.kind != "whole" and o.error})
    return {"mode": mode, "tally": tally, "killed": killed, "drain_s": drain_s, "stop_s": stopped, "up_s": up,
            "ready_s": ready, "listed": listed, "errors": errors}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("kill", "term-group", "term", "drained"), action="append")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--settle", type=float, default=4.0)
    parser.add_argument("--after", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--stop-timeout", type=float, default=90.0,
                        help="seconds before SIGKILL, as systemd's default TimeoutStopSec (term modes)")
    args = parser.parse_args(argv)
    print("| mode | run | sent | whole | cut | failed | stop s | replica up s | gateway ready s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for mode in args.mode or ["kill", "term-group", "term", "drained"]:
        for run in range(1, args.runs + 1):
            found = one_run(mode, args.clients, args.max_tokens, args.settle, args.after, args.stop_timeout)
            t = found["tally"]
            notes = " SIGKILL after the stop timeout" if found["killed"] else ""
            if found["drain_s"] is not None:
                notes += f" (out of the gateway and idle after {found['drain_s']:.1f} s)"
            listed = "" if found["listed"] else " (not listed)"
            print(f"| {mode} | {run} | {t.sent} | {t.whole} | {t.cut} | {t.failed} | {found['stop_s']:.1f} | "
                  f"{found['up_s']:.1f} | {found['ready_s']:.1f}{listed} |{notes}", flush=True)
            for error in found["errors"][:3]:
                print(f"  {mode}: {error[:160]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
