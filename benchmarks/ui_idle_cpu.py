"""CPU of the dashboard process of `mtptui demo` with a live connection, measured from /proc over --seconds.

    .venv/bin/python benchmarks/ui_idle_cpu.py [--seconds 30]

Two cases: an idle server (MTPTUI_DEMO_LOAD=0: the log is quiet, the status poller and the header clock
tick) and the demo as shipped (one request after another: a decode batch line about every 2 s). The
simulated server's own CPU is not counted (it is another process).
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from ui_terminal import Terminal, cpu_percent, rss_mb


def measure(load: bool, seconds: float, tmp: str) -> tuple[float, float]:
    term = Terminal("mtptui-idle")
    try:
        env = {"TMPDIR": tmp, "MTPTUI_DEMO_SPEED": "20", "MTPTUI_DEMO_LOAD": "1" if load else "0"}
        term.start([sys.executable, "-m", "mtptui.cli.main", "demo"], env)
        term.wait_for("● ready", timeout=60)
        if load:
            term.wait_for("steady mean", timeout=60)
        pid = term.pane_pid()
        cpu_percent(pid, 3)  # let the startup burst pass
        return cpu_percent(pid, seconds), rss_mb(pid)
    finally:
        term.keys("q")
        term.wait_closed()
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for load in (False, True):
            cpu, rss = measure(load, args.seconds, tmp)
            case = "demo load (decode line every ~2 s)" if load else "idle server, live connection"
            print(f"{case}: dashboard CPU {cpu:.2f} % of one core over {args.seconds:g} s, RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
