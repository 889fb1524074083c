"""What one live GPU poll costs: nvidia-smi (the stand-in) run through the session's transport, over a real SSH
connection to the test sshd on 127.0.0.1 and on this machine, and the stand-in run directly.

    .venv/bin/python benchmarks/gpu_poll.py [--polls 40]

Per poll: wall time (median and p90) and the operator process's own CPU time (what the dashboard pays every
1.5 s). The stand-in is a Python script, so most of the wall time is its interpreter starting; a real
nvidia-smi takes tens of milliseconds on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mtptui.remote.gpu import QUERY, read_gpus  # noqa: E402
from mtptui.remote.local import LocalTransport  # noqa: E402
from tests.sshd import NVIDIA_SMI, SSHD, host_env  # noqa: E402


async def timed(transport, polls: int) -> tuple[list[float], float]:
    walls, cpu = [], time.process_time()
    for _ in range(polls):
        start = time.perf_counter()
        reading = await read_gpus(transport)
        walls.append(time.perf_counter() - start)
        assert reading.problem is None, reading.problem
    return walls, (time.process_time() - cpu) / polls


def direct(polls: int) -> list[float]:
    walls = []
    for _ in range(polls):
        start = time.perf_counter()
        subprocess.run([str(NVIDIA_SMI), *QUERY[1:]], capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
    return walls


def row(name: str, walls: list[float], cpu_s: float | None) -> str:
    ordered = sorted(walls)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    cpu = f"{cpu_s * 1000:.1f}" if cpu_s is not None else "—"
    return f"| {name} | {len(walls)} | {statistics.median(walls) * 1000:.1f} | {p90 * 1000:.1f} | {cpu} |"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polls", type=int, default=40)
    args = parser.parse_args()
    from mtptui.remote.ssh import SSHTransport

    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "host"
        state.mkdir()
        env = host_env(state)
        env["PATH"] = f"{NVIDIA_SMI.parent}:{env['PATH']}"
        sshd = SSHD(Path(tmp) / "sshd", env=env)
        sshd.start()
        try:
            transport = SSHTransport(sshd.ssh_config())
            await read_gpus(transport)  # connect first: the poll reuses the one connection
            ssh_walls, ssh_cpu = await timed(transport, args.polls)
            await transport.close()
        finally:
            sshd.stop()
    os.environ["PATH"] = f"{NVIDIA_SMI.parent}:{os.environ['PATH']}"
    local_walls, local_cpu = await timed(LocalTransport(), args.polls)
    print("| path | polls | median ms | p90 ms | operator CPU ms per poll |")
    print("|---|---|---|---|---|")
    print(row("SSH (asyncssh, one connection)", ssh_walls, ssh_cpu))
    print(row("local transport", local_walls, local_cpu))
    print(row("stand-in run directly", direct(args.polls), None))


if __name__ == "__main__":
    asyncio.run(main())
