"""One fleet refresh at 3, 3,000 and 10,000 instances: wall time and peak RSS of `collect` (issue 30, item 6).

The Prometheus is the stand-in of tests/prometheus_standin.py (no real Prometheus here scrapes 10,000 servers),
in a process of its own, answering every query for N instances from bodies it rendered once. Each size runs in
a fresh process: one warm-up refresh (the stand-in renders its answers), then ``--runs`` refreshes timed; the
figure is the median wall time, with the refresh's own CPU time (steadier than the wall clock on a machine
shared with other test suites), the peak RSS of the whole process and the 1-minute load average. ``--root`` runs the fleet code of another
checkout (e.g. an export of main) for the before figures.

    .venv/bin/python benchmarks/fleet_refresh.py
    .venv/bin/python benchmarks/fleet_refresh.py --sizes 3000 --root /tmp/main-export --timeout 900
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import asyncio, json, resource, statistics, sys, time
from mtptui.fleet.collect import collect
from mtptui.fleet.prom import Prometheus
from mtptui.fleet.settings import load_settings

url, runs = sys.argv[1], int(sys.argv[2])

async def refresh(settings):
    async with Prometheus(settings.url, settings.auth) as prom:
        start, cpu = time.perf_counter(), time.process_time()
        snapshot = await collect(prom, settings, {})
        return time.perf_counter() - start, time.process_time() - cpu, len(snapshot.rows)

settings = load_settings(url=url, match='job="sglang"', path=None)
asyncio.run(refresh(settings))
times, cpus, rows = [], [], 0
for _ in range(runs):
    took, cpu, rows = asyncio.run(refresh(settings))
    times.append(took)
    cpus.append(cpu)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"median_s": statistics.median(times), "best_s": min(times), "cpu_s": statistics.median(cpus),
                  "rows": rows, "peak_mb": peak}))
"""


def measure(root: Path, url: str, runs: int, timeout: float, home: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(root), "XDG_CONFIG_HOME": home}
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, url, str(runs)], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=root)
    except subprocess.TimeoutExpired:
        return f"no refresh within {timeout:g} s"
    if done.returncode:
        return f"failed: {done.stderr.strip().splitlines()[-1:]}"
    got = json.loads(done.stdout)
    return (f"{got['median_s']:8.3f} s median (best {got['best_s']:.3f}, CPU {got['cpu_s']:.3f} s), "
            f"{got['rows']} rows, peak RSS {got['peak_mb']:.0f} MB, load {os.getloadavg()[0]:.1f}")


def main() -> None:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3,3000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose mtptui runs (default: this one)")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, "-m", "tests.prometheus_standin"], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        with tempfile.TemporaryDirectory() as home:
            for size in (int(s) for s in args.sizes.split(",")):
                url = f"http://127.0.0.1:{port}/fleet-{size}"
                print(f"{size:>6} instances: {measure(args.root, url, args.runs, args.timeout, home)}", flush=True)
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
