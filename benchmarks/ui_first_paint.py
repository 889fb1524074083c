"""Time to first paint of `mtptui demo`: from spawning the command in a real terminal (tmux, 160x48) to the
dashboard on screen (header and footer drawn), median of --runs.

    .venv/bin/python benchmarks/ui_first_paint.py [--runs 5]

The screen is polled every 5 ms with `tmux capture-pane`, so figures are high by up to ~10 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time

from ui_terminal import Terminal


def one_run(tmp: str) -> tuple[float, float]:
    term = Terminal("mtptui-paint")
    try:
        start = time.monotonic()  # before tmux spawns the command: its start-up counts too
        term.start([sys.executable, "-m", "mtptui.cli.main", "demo"], {"TMPDIR": tmp, "MTPTUI_DEMO_LOAD": "0"})
        term.wait_for("mtptui  demo", timeout=30)
        header = time.monotonic() - start
        term.wait_for("^p palette", timeout=30)
        footer = time.monotonic() - start
        term.keys("q")
        term.wait_closed()
        return header, footer
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = [one_run(tmp) for _ in range(args.runs)]
    for name, values in (("header", [r[0] for r in runs]), ("whole dashboard", [r[1] for r in runs])):
        print(f"first paint ({name}): median {statistics.median(values):.3f} s, "
              f"min {min(values):.3f} s, max {max(values):.3f} s over {len(values)} runs")


if __name__ == "__main__":
    main()
