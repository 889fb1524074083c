"""A hung and a flooding nvidia-smi on the lab host (issue 30, item 7): processes left on the host, peak RSS.

Needs root (the lab host of tests/lab: a network namespace reachable only over SSH). Hang: an nvidia-smi that
never returns; a dashboard's GPU poll asks it ``--polls`` times (each given up after its 1.5 s deadline), then
quits; the processes of it still on the host are counted 5 s later. Flood: an nvidia-smi that prints 200 MB;
`mtptui check` runs under ``/usr/bin/time -f %M``. ``--root`` runs another checkout's mtptui (e.g. an export of
main) for the before figures.

    sudo .venv/bin/python benchmarks/hostile_commands.py
    sudo .venv/bin/python benchmarks/hostile_commands.py --root /tmp/main-export
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lab import Lab, lab_host_file, operator_env, start_server  # noqa: E402
from tests.test_lab_bounded_commands import FLOOD, HANG  # noqa: E402

POLLS = r"""
import asyncio, sys
from mtptui.ops.connect import open_session
from mtptui.config.loader import load_host_file
from mtptui.remote.gpu import read_gpus

async def main():
    async with open_session(load_host_file(sys.argv[1])) as session:
        for _ in range(int(sys.argv[2])):
            try:
                await read_gpus(session.transport, timeout_s=1.5)
            except Exception as exc:
                print(type(exc).__name__, str(exc)[:100])
asyncio.run(main())
"""


def install(lab: Lab, folder: Path, text: str) -> None:
    for old in lab.bin.iterdir():
        old.unlink()
    program = folder / "nvidia-smi"
    program.write_text(text)
    program.chmod(0o755)
    lab.install(program)


def stuck(lab: Lab) -> int:
    out = lab.run("ps", "-eo", "args=").stdout
    return sum(1 for line in out.splitlines() if "nvidia-smi" in line or line.strip() == "sleep 1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--polls", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        folder = Path(tmp)
        lab = Lab(folder / "lab").start()
        try:
            host = lab_host_file(lab, folder / "lab.toml", "process")
            start_server(host, "redeploy-1step")
            host.wait_ready()
            env = {**operator_env(lab), "PYTHONPATH": str(args.root)}
            install(lab, folder, HANG)
            subprocess.run([sys.executable, "-c", POLLS, str(host.path), str(args.polls)], env=env, cwd=args.root,
                           timeout=600, capture_output=True)
            time.sleep(5)
            print(f"hang: {args.polls} polls, then quit: {stuck(lab)} processes of nvidia-smi left on the host")
            install(lab, folder, FLOOD)
            done = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "mtptui.cli.main", "check",
                                   "lab", "--config", str(host.path)], env=env, cwd=args.root, timeout=900,
                                  capture_output=True, text=True)
            rss = int(done.stderr.strip().splitlines()[-1]) / 1024
            line = next((x for x in done.stdout.splitlines() if "nvidia-smi" in x.split()[1:2]), "")
            print(f"flood: check peak RSS {rss:.0f} MB; {line.strip()[:160]}")
        finally:
            lab.stop()


if __name__ == "__main__":
    main()
