"""Time `mtptui parse-log --summary` as a whole process over generated SGLang logs of every shape (issues 3, 16).

For each shape of `gen_log.py` it reports lines/s over the whole log (best and median of `--runs`), lines per
second of the process's own CPU time (user + system: what the other processes on a shared machine do not move
much), peak RSS (`/usr/bin/time`) over the whole log and over its first quarter (memory must not grow with the
input), and the naive one-regex reader (`naive_reader.py`) over the same file in the same run. The figure that
counts is the worst shape's.

    python benchmarks/parse_log_bench.py                      # every shape, 1M lines each (generated if missing)
    python benchmarks/parse_log_bench.py --runs 5 --shapes quiet container
    git archive main mtptui | tar -x -C /tmp/main-src         # another version of the code, same run conditions:
    python benchmarks/parse_log_bench.py --code /tmp/main-src
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
TIME = "/usr/bin/time"
SHAPES = ("busy", "quiet", "ranks", "access", "container")


def ensure_log(shape: str, lines: int, seed: int) -> Path:
    size = f"{lines // 1_000_000}m" if lines % 1_000_000 == 0 else f"{lines // 1000}k"
    path = OUT / f"sglang-{size}.log" if shape == "busy" else OUT / f"sglang-{shape}-{size}.log"
    if not path.exists():
        print(f"generating {path.name} ({lines:,} lines) ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, str(HERE / "gen_log.py"), str(path), "--lines", str(lines), "--seed",
                        str(seed), "--shape", shape], check=True)
    return path


def head(path: Path, lines: int) -> Path:
    """The first `lines` lines of `path` as a file of their own."""
    part = path.with_name(f"{path.stem}-head{lines // 1000}k.log")
    if not part.exists():
        with path.open("rb") as src, part.open("wb") as dst:
            for _, line in zip(range(lines), src):
                dst.write(line)
    return part


def timed(argv: list[str], code: Path | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS in KB of one process run under /usr/bin/time."""
    env = dict(os.environ, PYTHONPATH=str(code)) if code else None
    start = time.perf_counter()
    done = subprocess.run([TIME, "-f", "%U %S %M", *argv], capture_output=True, text=True, check=True, env=env,
                          cwd=code)  # `-m` puts the working folder first on sys.path
    wall = time.perf_counter() - start
    user, system, rss = done.stderr.strip().splitlines()[-1].split()
    return wall, float(user) + float(system), int(rss)


def runs(argv: list[str], count: int, code: Path | None = None) -> dict:
    results = [timed(argv, code) for _ in range(count)]
    walls = [wall for wall, _, _ in results]
    return {"best": min(walls), "median": statistics.median(walls), "cpu": min(cpu for _, cpu, _ in results),
            "rss_kb": max(rss for _, _, rss in results)}


def count_lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))


def measure(shape: str, args: argparse.Namespace) -> dict:
    full = ensure_log(shape, args.lines, args.seed)
    quarter = head(full, args.lines // 4)
    parse = [sys.executable, "-m", "mtptui.cli.main", "parse-log", "--summary"]
    whole, part = runs([*parse, str(full)], args.runs, args.code), runs([*parse, str(quarter)], args.runs, args.code)
    naive = runs([sys.executable, str(HERE / "naive_reader.py"), str(full)], args.runs)
    lines = count_lines(full)
    return {"shape": shape, "lines": lines, "best": whole["best"], "median": whole["median"],
            "rate": lines / whole["best"], "cpu_rate": lines / whole["cpu"], "rss_mb": whole["rss_kb"] / 1024,
            "rss_quarter_mb": part["rss_kb"] / 1024, "naive_rate": lines / naive["best"],
            "speedup": naive["best"] / whole["best"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--code", type=Path, help="time the mtptui package found in this folder (PYTHONPATH)")
    args = parser.parse_args()
    print("| shape | lines | best s (median) | lines/s | lines per CPU s | peak RSS (first quarter) "
          "| naive reader lines/s | vs naive |")
    print("|---|---|---|---|---|---|---|---|")
    results = []
    for shape in args.shapes:
        r = measure(shape, args)
        results.append(r)
        print(f"| {shape} | {r['lines']:,} | {r['best']:.2f} ({r['median']:.2f}) | {r['rate']:,.0f} | "
              f"{r['cpu_rate']:,.0f} | {r['rss_mb']:.1f} MB ({r['rss_quarter_mb']:.1f} MB) | "
              f"{r['naive_rate']:,.0f} | {r['speedup']:.1f}x |", flush=True)
    worst = min(results, key=lambda r: r["rate"])
    print(f"\nworst shape: {worst['shape']}, {worst['rate']:,.0f} lines/s")


if __name__ == "__main__":
    main()
