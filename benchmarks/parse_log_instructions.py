"""Instructions per line of the `--summary` scan on each log shape, counted by valgrind (cachegrind).

Wall-clock figures on a shared 2-core machine swing by 2x with the other processes; the instruction count of
the same work does not, so this is what tells two versions of the parser apart. It counts the scan alone, in
process (`summarize_stream` on a file of `--lines` lines), minus a run on an empty input.

    python benchmarks/parse_log_instructions.py --lines 50000
    python benchmarks/parse_log_instructions.py --code /tmp/main-src      # another version of the code
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHAPES = ("busy", "quiet", "ranks", "access", "container")
CHILD = ("import io, sys\n"
         "from mtptui.engines.sglang.state import ServerState\n"
         "from mtptui.engines.sglang.state.scan import summarize_stream\n"
         "data = open(sys.argv[1], 'rb').read() if len(sys.argv) > 1 else b''\n"
         "summarize_stream(io.BytesIO(data), ServerState())\n")


def instructions(args: list[str], code: Path | None) -> int:
    env = dict(os.environ, PYTHONPATH=str(code)) if code else None
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           sys.executable, "-c", CHILD, *args], capture_output=True, text=True, env=env, check=True,
                          cwd=code)  # `-c` puts the working folder first on sys.path: it must not hold mtptui/
    return int(re.search(r"I\s+refs:\s+([\d,]+)", done.stderr).group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--code", type=Path, help="count the mtptui package found in this folder (PYTHONPATH)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    base = instructions([], args.code)
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            path = Path(tmp) / f"{shape}.log"
            subprocess.run([sys.executable, str(HERE / "gen_log.py"), str(path), "--lines", str(args.lines),
                            "--shape", shape], check=True)
            lines = path.read_bytes().count(b"\n")
            print(f"{shape:<10} {(instructions([str(path)], args.code) - base) / lines:>8,.0f} instructions/line",
                  flush=True)


if __name__ == "__main__":
    main()
