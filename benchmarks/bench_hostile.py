"""What a hostile server costs `mtptui bench` (issue 13, item 8): a huge model id, a stream that never ends.

The server is the hostile stand-in of the tests (tests/hostile_server.py, uvicorn in this process); each
`mtptui bench` run is its own process under `/usr/bin/time -f %M`, with a private XDG_DATA_HOME so the history
is fresh. `--root` runs the CLI of another checkout (e.g. an export of main) for before/after figures.

    .venv/bin/python benchmarks/bench_hostile.py                    # a 300 MB model id, three runs
    .venv/bin/python benchmarks/bench_hostile.py --id-mb 30 --root /tmp/main-export
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

from tests.hostile_server import serve_hostile  # noqa: E402

TIME = "/usr/bin/time"


def timed(root: Path, env: dict, args: list[str], timeout: float) -> str:
    start = time.perf_counter()
    try:
        done = subprocess.run([TIME, "-f", "%M", sys.executable, "-m", "mtptui.cli.main", "bench", *args],
                              capture_output=True, text=True, timeout=timeout, cwd=root, env=env)
    except subprocess.TimeoutExpired:
        return f"killed after {timeout:g} s (no answer)"
    lines = done.stderr.strip().splitlines()
    rss = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
    said = ("model id", "answer is over", "deadline")
    warned = next((line[:100] for line in lines if any(word in line for word in said)), "")
    return f"{time.perf_counter() - start:7.2f} s {rss:8.1f} MB  exit {done.returncode}  {warned}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--id-mb", type=int, default=300)
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose mtptui runs (default: this one)")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    with serve_hostile() as hostile, tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "XDG_DATA_HOME": data, "PYTHONPATH": str(args.root)}
        url = hostile.url(f"long-id-{args.id_mb << 20}")
        for run in (1, 2, 3):
            print(f"{args.id_mb} MB model id, run {run}: "
                  f"{timed(args.root, env, ['--url', url, '--requests', '1', '--max-tokens', '8'], args.timeout)}",
                  flush=True)
        history = Path(data) / "mtptui" / "bench-history.jsonl"
        size = history.stat().st_size if history.exists() else 0
        print(f"history after three runs: {size / 1e6:.2f} MB")
        trickle = ["--url", hostile.url("trickle"), "--requests", "1", "--warmup", "0", "--no-history",
                   "--max-tokens", "8", "--timeout", "5"]
        print(f"trickling stream (--timeout 5): {timed(args.root, env, trickle, args.timeout)}")


if __name__ == "__main__":
    main()
