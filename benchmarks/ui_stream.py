"""The dashboard under a log flood, in a real terminal (tmux, 160x48): CPU and input latency at --rate lines/s,
and memory while 1,000,000 lines stream through.

    .venv/bin/python benchmarks/ui_stream.py run [--rate 5000] [--seconds 20] [--presses 20]
    .venv/bin/python benchmarks/ui_stream.py memory [--total 1000000] [--rate 40000]

Both start ``ui_stream.py app`` in tmux: the real app (pump, parser, live host, log view, panes) on a
synthetic feed of realistic SGLang 0.5.12 lines (decode 70 %, access 18 %, prefill 10 %, warnings), sent in
chunks every 50 ms on an absolute schedule. The app appends one JSON line per second to --report (lines it has
received, RSS, CPU seconds). Input latency: `w` is pressed through tmux and the screen polled every 2 ms
until the log's border shows the wrap state flipped (key → handler → repaint → terminal).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TICK_S = 0.05


def synthetic_lines(count: int, start: int, rng: random.Random) -> list[str]:
    out = []
    for index in range(start, start + count):
        stamp = f"[2026-05-11 23:{(index // 60_000) % 60:02d}:{(index // 1000) % 60:02d} TP0] "
        roll = rng.random()
        if roll < 0.70:
            accept = 1.5 + rng.random() * 0.5
            out.append(f"{stamp}Decode batch, #running-req: 1, #full token: {600 + index % 900}, full token usage: "
                       f"0.00, mamba num: 3, mamba usage: 0.05, accept len: {accept:.2f}, accept rate: "
                       f"{accept - 1:.2f}, cuda graph: True, gen throughput (token/s): {30 + rng.random() * 8:.2f}, "
                       f"#queue-req: 0")
        elif roll < 0.88:
            out.append(f"{stamp.split(' TP0')[0]}] INFO:     127.0.0.1:{40000 + index % 20000} - "
                       f"\"POST /v1/chat/completions HTTP/1.1\" 200 OK")
        elif roll < 0.98:
            out.append(f"{stamp}Prefill batch, #new-seq: 1, #new-token: 597, #cached-token: 0, full token usage: "
                       f"0.00, mamba usage: 0.04, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: "
                       f"False, input throughput (token/s): 812.45")
        else:
            out.append(f"{stamp}KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_token_ratio: 0.5")
    return out


class SyntheticFeed:
    """``rate`` lines a second in 50 ms chunks, ``total`` lines in all, then a quiet live connection."""

    label = "synthetic"

    def __init__(self, rate: int, total: int) -> None:
        self.rate, self.total = rate, total
        self._closed = asyncio.Event()

    async def items(self):
        from mtptui.ops.feed.items import Connection, HostStatus, LogChunk

        yield Connection("connected")
        yield HostStatus("bench", service="synthetic", service_state="running", version="0.5.12.post1")
        rng, sent, start = random.Random(0), 0, time.monotonic()
        per_tick = max(int(self.rate * TICK_S), 1)
        tick = 0
        while sent < self.total and not self._closed.is_set():
            count = min(per_tick, self.total - sent)
            yield LogChunk("".join(f"{line}\n" for line in synthetic_lines(count, sent, rng)).encode())
            sent += count
            tick += 1
            await asyncio.sleep(max(start + tick * TICK_S - time.monotonic(), 0))
        await self._closed.wait()

    async def close(self) -> None:
        self._closed.set()


def run_app(rate: int, total: int, report: Path) -> None:
    """The dashboard on the synthetic feed, reporting once a second."""
    from ui_terminal import cpu_seconds, rss_mb

    from mtptui.ui.app import AppContext, MtpApp

    class BenchApp(MtpApp):
        def on_mount(self) -> None:
            super().on_mount()
            self.set_interval(1.0, self.report)

        def report(self) -> None:
            with open(report, "a") as handle:
                handle.write(json.dumps({"t": time.monotonic(), "lines": self.live.lines_seen,
                                         "rss_mb": rss_mb(os.getpid()), "cpu_s": cpu_seconds(os.getpid())}) + "\n")

    BenchApp(SyntheticFeed(rate, total), AppContext("bench"), keymap={}).run()


def read_report(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def wait_lines(report: Path, lines: int, timeout: float) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = read_report(report)
        if rows and rows[-1]["lines"] >= lines:
            return rows
        time.sleep(0.2)
    raise SystemExit(f"the app did not reach {lines} lines in {timeout} s: {read_report(report)[-3:]}")


def start(term, rate: int, total: int, report: Path) -> None:
    term.start([sys.executable, __file__, "app", "--rate", str(rate), "--total", str(total), "--report", str(report)])
    term.wait_for("log ▸ following", timeout=30)


def border_has_wrap(screen: str) -> bool:
    lines = screen.splitlines()
    return len(lines) >= 47 and "wrap ·" in lines[46]


def press_latency(term, presses: int) -> list[float]:
    samples = []
    for _ in range(presses):
        before = border_has_wrap(term.screen())
        pressed = time.monotonic()
        term.keys("w")
        while border_has_wrap(term.screen()) == before:
            if time.monotonic() - pressed > 5:
                raise SystemExit("the wrap toggle never showed on screen")
            time.sleep(0.002)
        samples.append(time.monotonic() - pressed)
        time.sleep(0.3)
    return samples


def cmd_run(args) -> None:
    from ui_terminal import Terminal

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.jsonl"
        term = Terminal("mtptui-stream")
        try:
            start(term, args.rate, 10**9, report)
            time.sleep(3)
            first = read_report(report)[-1]
            time.sleep(args.seconds)
            last = read_report(report)[-1]
            latency = press_latency(term, args.presses)
        finally:
            term.close()
    elapsed = last["t"] - first["t"]
    cpu = 100 * (last["cpu_s"] - first["cpu_s"]) / elapsed
    received = (last["lines"] - first["lines"]) / elapsed
    latency_ms = sorted(x * 1000 for x in latency)
    print(f"{args.rate} lines/s offered: {received:,.0f} lines/s received by the dashboard, CPU {cpu:.1f} % of one "
          f"core over {elapsed:.0f} s, RSS {last['rss_mb']:.0f} MB")
    print(f"input latency (w → wrap shown, {len(latency_ms)} presses while streaming): median "
          f"{statistics.median(latency_ms):.0f} ms, p90 {latency_ms[int(len(latency_ms) * 0.9) - 1]:.0f} ms, "
          f"max {latency_ms[-1]:.0f} ms")


def cmd_memory(args) -> None:
    from ui_terminal import Terminal

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.jsonl"
        term = Terminal("mtptui-memory")
        try:
            start(term, args.rate, args.total, report)
            began = time.monotonic()
            rows = wait_lines(report, args.total, timeout=args.total / args.rate * 4 + 60)
            took = time.monotonic() - began
            time.sleep(3)
            rows = read_report(report)
        finally:
            term.close()
    print(f"{args.total:,} lines streamed in {took:.0f} s (offered {args.rate:,} lines/s)")
    marks = [args.total * f // 100 for f in (10, 25, 50, 75, 100)]
    for mark in marks:
        row = next(r for r in rows if r["lines"] >= mark)
        print(f"  after {row['lines']:>9,} lines: RSS {row['rss_mb']:.1f} MB")
    print(f"  idle afterwards: RSS {rows[-1]['rss_mb']:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    app = sub.add_parser("app", help="run the dashboard on the synthetic feed (inside a terminal)")
    app.add_argument("--rate", type=int, default=5000)
    app.add_argument("--total", type=int, default=10**9)
    app.add_argument("--report", type=Path, required=True)
    run = sub.add_parser("run", help="CPU and input latency while streaming")
    run.add_argument("--rate", type=int, default=5000)
    run.add_argument("--seconds", type=float, default=20.0)
    run.add_argument("--presses", type=int, default=20)
    memory = sub.add_parser("memory", help="RSS while --total lines stream through")
    memory.add_argument("--total", type=int, default=1_000_000)
    memory.add_argument("--rate", type=int, default=40_000)
    args = parser.parse_args()
    if args.command == "app":
        run_app(args.rate, args.total, args.report)
    else:
        (cmd_run if args.command == "run" else cmd_memory)(args)


if __name__ == "__main__":
    main()
