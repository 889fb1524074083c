"""`mtptui fleet --once --json` against every misbehaviour of the stand-in Prometheus (issue 30, item 6).

Each run is its own process under ``/usr/bin/time -f %M``, against tests/prometheus_standin.py in this process:
wrong shapes, JSON nested 100,000 deep, a body that is not UTF-8, 400 MB, an answer that trickles a byte every
half second. For each: exit status, whether stderr holds a traceback, seconds, peak RSS (each run is held to 4 GB of
address space: the machine is shared; past that the run fails with a MemoryError, which counts as a traceback). ``--root`` runs the
CLI of another checkout (e.g. an export of main) for the before figures.

    .venv/bin/python benchmarks/fleet_hostile.py
    .venv/bin/python benchmarks/fleet_hostile.py --root /tmp/main-export --timeout 120
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.prometheus_standin import BEHAVIOURS, STREAMS, serve_prometheus  # noqa: E402


MEMORY_LIMIT = 4 << 30  # address space of each run: the machine is shared, and 400 MB once took 10 GB


def _limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def one(root: Path, url: str, timeout: float, env: dict) -> tuple[str, bool, float, float]:
    start = time.perf_counter()
    try:
        done = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "mtptui.cli.main", "fleet",
                               "--prometheus", url, "--once", "--json"], capture_output=True, text=True,
                              timeout=timeout, cwd=root, env=env, preexec_fn=_limit)
    except subprocess.TimeoutExpired:
        return f"no end within {timeout:g} s", False, timeout, float("nan")
    lines = done.stderr.strip().splitlines()
    rss = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
    return f"exit {done.returncode}", "Traceback" in done.stderr, time.perf_counter() - start, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    tracebacks = hangs = 0
    with serve_prometheus() as prom, tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PYTHONPATH": str(args.root), "XDG_CONFIG_HOME": home}
        for behaviour in [*sorted(BEHAVIOURS), *STREAMS]:
            how, traceback, seconds, rss = one(args.root, prom.url(behaviour), args.timeout, env)
            tracebacks += traceback
            hangs += how.startswith("no end")
            print(f"{behaviour:>20}: {how:<24} traceback {'yes' if traceback else 'no ':<4} {seconds:7.2f} s "
                  f"{rss:8.1f} MB", flush=True)
    print(f"{len(BEHAVIOURS) + len(STREAMS)} misbehaviours: {tracebacks} tracebacks, {hangs} without an end")


if __name__ == "__main__":
    main()
