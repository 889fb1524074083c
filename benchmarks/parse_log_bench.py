"""Time `mtptui parse-log --summary` as a whole process over a generated SGLang log (issue 3).

Reports lines/s and peak RSS (`/usr/bin/time -f %M`) for the full log and for its first quarter (peak memory
must not grow with the input), beside `grep -cE 'Decode batch|Prefill batch'` over the same file as the floor.

    python benchmarks/parse_log_bench.py                 # generates benchmarks/out/sglang-1m.log if missing
    python benchmarks/parse_log_bench.py --runs 5 --lines 1000000
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
TIME = "/usr/bin/time"


def ensure_log(lines: int, seed: int) -> Path:
    path = OUT / f"sglang-{lines // 1000}k.log" if lines % 1_000_000 else OUT / f"sglang-{lines // 1_000_000}m.log"
    if not path.exists():
        print(f"generating {path} ({lines:,} lines) ...", flush=True)
        subprocess.run([sys.executable, str(HERE / "gen_log.py"), str(path), "--lines", str(lines), "--seed",
                        str(seed)], check=True)
    return path


def head(path: Path, lines: int) -> Path:
    """The first `lines` lines of `path` as a file of their own."""
    part = path.with_name(f"{path.stem}-head{lines // 1000}k.log")
    if not part.exists():
        with path.open("rb") as src, part.open("wb") as dst:
            for _, line in zip(range(lines), src):
                dst.write(line)
    return part


def timed(argv: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in KB and stdout of one process run under /usr/bin/time."""
    start = time.perf_counter()
    done = subprocess.run([TIME, "-f", "%M", *argv], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    return wall, int(done.stderr.strip().splitlines()[-1]), done.stdout


def bench(path: Path, runs: int) -> dict:
    argv = [sys.executable, "-m", "mtptui.cli.main", "parse-log", "--summary", str(path)]
    results = [timed(argv) for _ in range(runs)]
    walls = [wall for wall, _, _ in results]
    return {"best": min(walls), "median": statistics.median(walls), "rss_kb": max(rss for _, rss, _ in results)}


def count_lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    full = ensure_log(args.lines, args.seed)
    quarter = head(full, args.lines // 4)
    print(f"{'input':<28} {'lines':>10} {'best s':>8} {'median s':>9} {'lines/s (best)':>15} {'peak RSS':>10}")
    for path in (quarter, full):
        lines, result = count_lines(path), bench(path, args.runs)
        print(f"{path.name:<28} {lines:>10,} {result['best']:>8.2f} {result['median']:>9.2f} "
              f"{lines / result['best']:>15,.0f} {result['rss_kb'] / 1024:>8.1f} MB")
    floor = min(timed(["grep", "-cE", "Decode batch|Prefill batch", str(full)])[0] for _ in range(args.runs))
    print(f"floor: grep -cE 'Decode batch|Prefill batch' {full.name}: {floor:.2f} s")


if __name__ == "__main__":
    main()
