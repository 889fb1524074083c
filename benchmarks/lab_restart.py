"""Where one `mtptui restart` on the lab host spends its time: every SSH command (count and seconds), the
restart's own steps, and the simulated server's start as its log shows it.

    sudo .venv/bin/python benchmarks/lab_restart.py [--manager systemd|process|both] [--runs 3] [--commands]
        [--profile restored|no-extra-buffer] [--delayed-acks]

Needs what the lab host needs (root, iproute2, netcat; see tests/lab). The host runs the mission's bad redeploy
(redeploy-1step) from its unit or by hand, as the lab tests start it; then ``mtptui restart lab --profile
restored --yes --json`` runs in this process (the command line's own entry point), with every SSH command and
stream the transport opens recorded (when it started, how long it took, what it was). First the round trip of
one SSH command (``true``, median of 20 over one connection); then per run: the
whole command (plan and restart), the SSH round trips before the restart (the plan) and during it, their
seconds, the time from the start step to the ready event (the server's start as the restart sees it: the
stop, its Python start and its paced startup at MTPTUI_SIM_SPEED=200, the watch), and the time after ready
(the finishing steps and the end state). ``--profile no-extra-buffer`` restarts into a profile that crashes at
start: ``start_to_crash_s`` is how long the watch takes to call the crash (then the rollback runs).
``--commands`` lists every command of the last run; ``--delayed-acks`` undoes the lab's quickack loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lab import Lab, lab_host_file, lab_missing, quick_acks, start_server  # noqa: E402


@dataclass
class Call:
    started: float
    seconds: float
    kind: str  # "run" or "stream"
    what: str


@dataclass
class Record:
    calls: list[Call] = field(default_factory=list)
    events: list[tuple[float, str, str]] = field(default_factory=list)  # (monotonic, step, message)


CURRENT = Record()


def instrument() -> None:
    """Record every SSH command and stream, and every restart event, in ``CURRENT`` as they happen."""
    from mtptui.ops.restart.run import Restarter
    from mtptui.remote.ssh import SSHTransport

    run, stream, emit = SSHTransport.run, SSHTransport.open_stream, Restarter.emit

    async def timed_run(self, command, timeout=None):
        started = time.monotonic()
        try:
            return await run(self, command, timeout)
        finally:
            CURRENT.calls.append(Call(started, time.monotonic() - started, "run", command.what or command.line[:60]))

    async def timed_stream(self, command):
        started = time.monotonic()
        try:
            return await stream(self, command)
        finally:
            CURRENT.calls.append(Call(started, time.monotonic() - started, "stream",
                                     command.what or command.line[:60]))

    def recorded_emit(self, step, message, detail=None):
        CURRENT.events.append((time.monotonic(), step, message))
        return emit(self, step, message, detail)

    SSHTransport.run, SSHTransport.open_stream, Restarter.emit = timed_run, timed_stream, recorded_emit


def one_restart(lab: Lab, manager: str, tmp: Path, profile: str) -> tuple[dict, Record]:
    from mtptui.cli.main import main

    lab.reset()
    host = lab_host_file(lab, tmp / f"lab-{manager}.toml", manager)
    start_server(host, "redeploy-1step")
    host.wait_ready()
    global CURRENT
    CURRENT = record = Record()
    started = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--config", str(host.path), "restart", "lab", "--profile", profile, "--yes", "--json", "--force"])
    total = time.monotonic() - started
    crashed = any(step == "crashed" for _, step, _ in record.events)
    assert code == (1 if crashed else 0), f"the restart failed (exit {code})"
    return figures(record, started, total), record


def round_trip_ms(lab: Lab, tmp: Path, count: int = 20) -> float:
    """The median of ``count`` SSH commands (``true``) over one connection to the lab host, in ms."""
    from mtptui.ops.connect import open_session
    from mtptui.remote.shell import Command

    host = lab_host_file(lab, tmp / "lab-rtt.toml", "process")

    async def measure() -> float:
        async with open_session(host.config) as session:
            await session.transport.run(Command.of(["true"], "connect"))
            times = []
            for _ in range(count):
                started = time.monotonic()
                await session.transport.run(Command.of(["true"], "a round trip"))
                times.append(1000 * (time.monotonic() - started))
        return statistics.median(times)

    return asyncio.run(measure())


def figures(record: Record, started: float, total: float) -> dict:
    at = {step: t for t, step, _ in reversed(record.events)}  # the first time of each step
    plan_end = at.get("plan", started)
    before = [c for c in record.calls if c.started < plan_end]
    during = [c for c in record.calls if c.started >= plan_end]
    start_step = at.get("restart", at.get("launch", at.get("starting", plan_end)))
    return {"total_s": total, "plan_s": plan_end - started, "plan_calls": len(before),
            "plan_ssh_s": sum(c.seconds for c in before), "restart_calls": len(during),
            "restart_ssh_s": sum(c.seconds for c in during if c.kind == "run"),
            "before_start_s": start_step - plan_end, "start_to_ready_s": at.get("ready", start_step) - start_step,
            "start_to_crash_s": at.get("crashed", start_step) - start_step,
            "after_ready_s": started + total - at.get("ready", started + total)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manager", choices=("systemd", "process", "both"), default="both")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", default="restored",
                        help="the profile to restart with (no-extra-buffer crashes at start: the crash and rollback)")
    parser.add_argument("--commands", action="store_true", help="list every SSH command of the last run")
    parser.add_argument("--delayed-acks", action="store_true",
                        help="the lab's loopback with delayed ACKs (as before tests/lab set quickack on it)")
    args = parser.parse_args()
    if missing := lab_missing():
        sys.exit(missing)
    tmp = Path(tempfile.mkdtemp(prefix="mtptui-lab-restart-"))
    lab = Lab(tmp / "lab").start()
    quick_acks(lab.ns, on=not args.delayed_acks)
    instrument()
    os.environ["HOME"] = str(lab.home)
    os.environ.pop("SSH_AUTH_SOCK", None)
    try:
        print(f"round_trip_ms {round_trip_ms(lab, tmp):.1f} (one SSH command, median of 20)")
        for manager in (("systemd", "process") if args.manager == "both" else (args.manager,)):
            runs = [one_restart(lab, manager, tmp, args.profile) for _ in range(args.runs)]
            report(manager, runs, args.commands)
    finally:
        lab.stop()


def report(manager: str, runs: list[tuple[dict, Record]], commands: bool) -> None:
    print(f"\n{manager}: {len(runs)} restarts (median, then each run)")
    for key in runs[0][0]:
        values = [figures[key] for figures, _ in runs]
        shown = " ".join(f"{v:6.2f}" if isinstance(v, float) else f"{v:6d}" for v in values)
        print(f"  {key:18} {statistics.median(values):8.2f}   {shown}")
    if commands:
        record = runs[-1][1]
        origin = record.calls[0].started if record.calls else 0.0
        for t, step, message in record.events:
            print(f"  {t - origin:7.2f}        event {step}: {message[:90]}")
        for call in sorted(record.calls, key=lambda c: c.started):
            print(f"  {call.started - origin:7.2f} {call.seconds:6.3f} {call.kind:6} {call.what[:90]}")


if __name__ == "__main__":
    main()
