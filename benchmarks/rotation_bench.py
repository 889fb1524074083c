"""Log rotation under load, over SSH (issue 13, item 10): lines lost and repeated by `LogFollower` while a writer
appends at 2,000 lines/s and rotates its log N times (copytruncate and rename alternately, like logrotate),
with M of the rotations made while the SSH connection is down (every connection killed just before).

    .venv/bin/python benchmarks/rotation_bench.py                 # 120,000 lines, 40 rotations, 20 kills
    .venv/bin/python benchmarks/rotation_bench.py --lines 60000 --rotations 20 --kills 10

It starts the tests' lab host (tests/lab: a network namespace with a real sshd, reached through the `gpu-lab`
ProxyCommand alias; needs root, iproute2 and netcat) and uses the writer and the counting of
tests/logrotation.py. Counts are what matter; the time is printed for scale. A kill waits until the follower
reads again on a new connection, so the writer pauses then and the run is longer than lines / rate.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mtptui.config.models import SSHConfig  # noqa: E402
from mtptui.remote.follow import Backoff, LogFollower  # noqa: E402
from mtptui.remote.logsource import FileLog, Start  # noqa: E402
from mtptui.remote.ssh import SSHTransport  # noqa: E402
from tests.lab import ALIAS, Lab, lab_missing  # noqa: E402
from tests.logrotation import LINE, Link, RotatingWriter, count, follow_until  # noqa: E402


async def measure(lab: Lab, args: argparse.Namespace) -> None:
    log = lab.srv / "sglang.log"
    log.touch()
    spread = args.rotations / max(1, args.kills)  # even spread, alternating copytruncate (even) and create (odd)
    killed = {min(args.rotations - 1, int(k * spread) + k % 2) for k in range(args.kills)}
    link, dropped_at, kills = Link(), [0], []

    def drop(index: int, how: str) -> None:
        if index in killed:
            link.wait_reading_again(dropped_at[0])
            dropped_at[0] = link.connected
            kills.append((how, lab.sshd.kill_connections()))

    writer = RotatingWriter(log, lines=args.lines, rate=args.rate, rotations=args.rotations, before_rotation=drop)
    transport = SSHTransport(SSHConfig(target=ALIAS, keepalive_s=1))
    follower = LogFollower(transport, FileLog(str(log)), start=Start.beginning(), backoff=Backoff(initial_s=0.2))
    thread = threading.Thread(target=writer.run, name="rotating-writer")
    start = time.monotonic()
    thread.start()
    try:
        received, statuses = await asyncio.wait_for(follow_until(follower, LINE % (args.lines - 1), link),
                                                    args.timeout)
    except asyncio.TimeoutError:
        received, statuses = b"", []
        print(f"the last line did not arrive within {args.timeout:g} s")
        await follower.stop()
    finally:
        thread.join()
        await transport.close()
    lost, repeated = count(received, args.lines)
    kinds = {how: writer.done.count(how) for how in ("copytruncate", "create")}
    down = {how: sum(1 for kind, pids in kills if kind == how and pids) for how in kinds}
    print(f"{args.lines:,} lines at {args.rate:,.0f} lines/s, {len(writer.done)} rotations ({kinds}), "
          f"{sum(1 for _, pids in kills if pids)} made with the connection killed ({down}), "
          f"{[s.state for s in statuses].count('reconnecting')} reconnects")
    print(f"lines lost: {lost}, lines repeated: {repeated}, wall {time.monotonic() - start:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=120_000)
    parser.add_argument("--rate", type=float, default=2_000.0)
    parser.add_argument("--rotations", type=int, default=40)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    missing = lab_missing()
    if missing:
        sys.exit(missing)
    with tempfile.TemporaryDirectory(prefix="rotation-bench-") as root:
        lab = Lab(Path(root)).start()
        home = os.environ.get("HOME")
        os.environ["HOME"] = str(lab.home)
        os.environ.pop("SSH_AUTH_SOCK", None)
        try:
            asyncio.run(measure(lab, args))
        finally:
            os.environ["HOME"] = home or ""
            lab.stop()


if __name__ == "__main__":
    main()
