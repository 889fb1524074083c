"""What hostile sizes cost (issue 13, item 11): config files that never end, huge host files, huge command lines,
one huge log line. Each case is one `mtptui` process under `/usr/bin/time -f %M` with a memory limit and a
timeout, so a case that grows without bound or hangs is reported as such instead of taking the machine down.

    .venv/bin/python benchmarks/bounds_bench.py                      # 200 MB files, 100,000-word command lines
    .venv/bin/python benchmarks/bounds_bench.py --mb 20 --words 20000 --only lint diff-unit

Inputs are generated under benchmarks/out/bounds/ (gitignored) and reused.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out" / "bounds"
TIME = "/usr/bin/time"
MEMORY_LIMIT = 3 << 30
HOST = ('name = "{name}"\napi_url = "http://127.0.0.1:30000"\n[server]\nmanager = "process"\n'
        'log_file = "/tmp/x.log"\n[log]\nkind = "file"\npath = "/tmp/x.log"\n')
MISSION = ["--speculative-algorithm", "NEXTN", "--speculative-num-steps", "3", "--tp-size", "2",
           "--mem-fraction-static", "0.88", "--context-length", "131072"]


def write_once(path: Path, make) -> Path:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as handle:
            make(handle)
        tmp.rename(path)
    return path


def big_host_dir(mb: int) -> Path:
    """A hosts directory with one valid small host and one `mb` MB host file of many profiles."""
    folder = OUT / f"hosts-{mb}mb"
    write_once(folder / "small.toml", lambda h: h.write(HOST.format(name="small").encode()))

    def big(handle) -> None:
        handle.write(HOST.format(name="big").encode())
        note = "x" * 60
        for block in range(mb * (1 << 20) // 100_000):
            handle.write("".join(f'[profiles.p{block}_{i}]\nmodel_path = "/models/m"\nnote = "{note}"\n'
                                 for i in range(1000)).encode())
    write_once(folder / "big.toml", big)
    return folder


def long_line_log(mb: int) -> Path:
    def make(handle) -> None:
        handle.write(b"[2026-05-11 23:49:07 TP0] before\n[2026-05-11 23:49:07 TP0] ")
        for _ in range(mb):
            handle.write(b"x" * (1 << 20))
        handle.write(b"\n[2026-05-11 23:49:08 TP0] Decode batch, #running-req: 1, #token: 5, token usage: 0.00, "
                     b"accept len: 3.00, accept rate: 0.75, cuda graph: True, gen throughput (token/s): 50.00, "
                     b"#queue-req: 0\n")
    return write_once(OUT / f"line-{mb}mb.log", make)


def command_words(words: int) -> list[str]:
    argv = ["python3", "-m", "sglang.launch_server", "--model-path", "/models/m"]
    while len(argv) < words:
        argv += MISSION
    return argv[:5 + (words - 5) // len(MISSION) * len(MISSION)]


def unit_file(words: int) -> Path:
    def make(handle) -> None:
        handle.write(b"[Service]\nExecStart=" + " ".join(command_words(words)).encode() + b"\n")
    return write_once(OUT / f"unit-{words}.service", make)


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def timed(argv: list[str], timeout: float) -> str:
    """'wall s, peak RSS, exit' of one run; a run past `timeout` is killed and reported as such."""
    start = time.perf_counter()
    try:
        done = subprocess.run([TIME, "-f", "%M", *argv], capture_output=True, text=True, timeout=timeout,
                              preexec_fn=_limit, stdin=subprocess.DEVNULL, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return f"killed after {timeout:g} s (no answer)"
    wall = time.perf_counter() - start
    lines = done.stderr.strip().splitlines()
    rss = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
    said = next((line for line in lines[:-1] if line.strip()), "")
    if "MemoryError" in done.stderr:
        said = "MemoryError (traceback)"
    return f"{wall:6.2f} s  {rss:7.1f} MB  exit {done.returncode}  {said[:110]}"


def mtptui(*args: str) -> list[str]:
    return [sys.executable, "-m", "mtptui.cli.main", *args]


def cases(args) -> dict:
    hosts = big_host_dir(args.mb)
    fifo = OUT / "fifo.toml"
    if not fifo.exists():
        fifo.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(fifo)
    demo = str(ROOT / "configs" / "demo.toml")
    return {
        "config-dev-zero": lambda: mtptui("diff", "--left", "small:x", "--right", "small:y", "--config", "/dev/zero"),
        "config-fifo": lambda: mtptui("diff", "--left", "small:x", "--right", "small:y", "--config", str(fifo)),
        "host-in-its-own-file": lambda: mtptui("profiles", "show", "small", "--config", str(hosts)),
        "host-in-another-dir": lambda: mtptui("profiles", "show", "ct129", "--config", str(hosts)),
        "lint": lambda: mtptui("flags", "lint", "--", *command_words(args.words)),
        "diff-unit": lambda: mtptui("diff", "--left", str(unit_file(args.words)), "--right", f"{demo}:restored"),
        "parse-log-long-line": lambda: mtptui("parse-log", str(long_line_log(args.mb))),
        "parse-log-summary-long-line": lambda: mtptui("parse-log", "--summary", str(long_line_log(args.mb))),
        "ui-pump-long-line": lambda: [sys.executable, str(HERE / "bounds_pump.py"), str(long_line_log(args.mb))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="size of the big host file and of the long log line")
    parser.add_argument("--words", type=int, default=100_000, help="words of the huge command lines")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--only", nargs="*", default=None, help="case names to run")
    args = parser.parse_args()
    for name, argv in cases(args).items():
        if args.only and name not in args.only:
            continue
        print(f"{name:<28} {timed(argv(), args.timeout)}", flush=True)


if __name__ == "__main__":
    main()
