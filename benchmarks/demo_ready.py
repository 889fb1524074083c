"""How long `mtptui demo` takes from the command to a ready server on its dashboard (the README's figure).

    .venv/bin/python benchmarks/demo_ready.py [--runs 3]

Each run starts `mtptui demo` in a private tmux at 160x48 (the default MTPTUI_DEMO_SPEED, its own XDG state),
times the first frame of the dashboard, the server's startup as the startup pane says it (`startup took N s`),
and the command to `ready` on screen, then quits with `q`.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time

from ui_terminal import ROOT, Terminal

READY = re.compile(r"ready · startup took (\d+) s")


def one_run(index: int) -> tuple[float, float, int]:
    terminal = Terminal(f"demo-ready-{index}")
    state = tempfile.mkdtemp(prefix="mtptui-demo-ready-")
    start = time.monotonic()
    terminal.start([str(ROOT / ".venv" / "bin" / "mtptui"), "demo"], {"XDG_STATE_HOME": state})
    try:
        first = terminal.wait_for(" mtptui ", timeout=60)
        ready = terminal.wait_for("startup took", timeout=180)
        took = READY.search(terminal.screen())
        terminal.keys("q")
        terminal.wait_closed()
    finally:
        terminal.close()
    return first, ready, int(took.group(1)) if took else -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    readies = []
    for index in range(args.runs):
        first, ready, startup = one_run(index)
        readies.append(ready)
        print(f"run {index + 1}: dashboard after {first:.1f} s, ready on screen after {ready:.1f} s "
              f"(the startup pane: startup took {startup} s)", flush=True)
    print(f"ready: min {min(readies):.1f} s, median {statistics.median(readies):.1f} s, max {max(readies):.1f} s")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "benchmarks"))
    main()
