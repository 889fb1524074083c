"""TTFT and E2E as `mtptui bench` measures them at concurrency 8, against the simulated server's truth.

    .venv/bin/python benchmarks/bench_lanes_c8.py [--runs 3] [--requests 16] [--client-src DIR]

The simulated server (this checkout's, known-good profile, 16 running requests) runs in its own process;
`BenchRunner` runs here, imported from ``--client-src`` (default: this checkout; give an extracted older
commit, e.g. ``git archive COMMIT | tar -x -C /tmp/before``, to measure the client before a change). For
every measured request (thinking off, so the first token is the first text): the client's TTFT and E2E, the
same minus the server's own (arrival to first / last token, from /sim/requests), and how far apart the
server saw the requests of a wave arrive; for the first wave (the first 8 requests, dispatched together) and
for the rest. A client that connects inside the measured window makes the first wave arrive late and apart
(so the server prefills it in two batches). One run is thrown away first (the server's first decode steps).
With ``--via-ssh`` the API is reached as for a host: a real OpenSSH sshd on loopback (tests/sshd.py) and the
session's port forward (``ssh -L``), where every new connection is a new SSH channel.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--requests", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--client-src", type=Path, default=ROOT)
    parser.add_argument("--via-ssh", action="store_true", help="through an SSH port forward (sshd on loopback)")
    return parser.parse_args()


ARGS = _args()
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ARGS.client_src.resolve()))

import httpx  # noqa: E402

from mtptui.bench.load import LoadPlan  # noqa: E402
from mtptui.bench.payload import Sampling  # noqa: E402
from mtptui.bench.prompts import load_prompt_set  # noqa: E402
from mtptui.bench.runner import BenchConfig, BenchRunner  # noqa: E402
from tests.simserver import profile_argv, profile_env, start_sim  # noqa: E402


async def one_run(url: str) -> list[dict]:
    """Per measured request: its wave, client TTFT and E2E, the server's, and its arrival (seconds)."""
    plan = LoadPlan(requests=ARGS.requests, concurrency=ARGS.concurrency, warmup=1)
    config = BenchConfig(url=url, prompts=load_prompt_set("chat"), plan=plan, max_tokens=64,
                         sampling=Sampling(enable_thinking=False))
    result = await BenchRunner(config).run()
    async with httpx.AsyncClient(timeout=30) as client:
        truth = {t["rid"]: t for t in (await client.get(url + "/sim/requests")).json()["requests"]}
    rows = []
    for request in result.requests:
        real, m = truth[request.metrics.rid], request.metrics
        rows.append({"first": request.index < ARGS.concurrency, "ttft": m.ttft, "e2e": m.e2e,
                     "server_ttft": real["first_token"] - real["arrival"],
                     "server_e2e": real["last_token"] - real["arrival"], "arrival": real["arrival"]})
    return rows


def line(name: str, runs: list[list[dict]], first: bool) -> str:
    rows = [r for run in runs for r in run if r["first"] == first]
    mean = lambda key: statistics.fmean(r[key] for r in rows) * 1e3  # noqa: E731
    spread = statistics.fmean(max(r["arrival"] for r in run if r["first"] == first)
                              - min(r["arrival"] for r in run if r["first"] == first) for run in runs) * 1e3
    return (f"  {name:<11} TTFT {mean('ttft'):6.1f} ms (+{mean('ttft') - mean('server_ttft'):5.1f} over the "
            f"server's)   E2E {mean('e2e'):7.1f} ms (+{mean('e2e') - mean('server_e2e'):5.1f})   "
            f"arrivals spread over {spread:5.1f} ms   n={len(rows)}")


async def all_runs(url: str, port: int, tmp: Path) -> list[list[dict]]:
    transport = None
    if ARGS.via_ssh:
        from mtptui.remote.ssh import SSHTransport
        from tests.sshd import SSHD

        sshd = SSHD(tmp / "sshd").start()
        transport = SSHTransport(sshd.ssh_config())
        host, local = await transport.forward_port("127.0.0.1", port)
        url = f"http://{host}:{local}"
    try:
        await one_run(url)  # thrown away: the server's first decode steps are slow
        return [await one_run(url) for _ in range(ARGS.runs)]
    finally:
        if transport is not None:
            await transport.close()
            sshd.stop()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, start_sim(Path(tmp), profile_argv("restored"),
                                                         env=profile_env("restored")) as sim:
        runs = asyncio.run(all_runs(sim.url, sim.port, Path(tmp)))
    via = " through an SSH port forward" if ARGS.via_ssh else ""
    print(f"client from {ARGS.client_src}{via}, concurrency {ARGS.concurrency}, {ARGS.runs} runs of "
          f"{ARGS.requests} requests x 64 tokens (thinking off), means:")
    print(line("first wave", runs, True))
    print(line("later", runs, False))


if __name__ == "__main__":
    main()
