"""Every command mtptui runs on a host ends there by its deadline, and its output is bounded on the host.

A hung ``nvidia-smi`` (a driver stuck in the kernel) left one process on the host every poll, still there after
mtptui quit, because only the caller's side gave up; 200 MB of output took ``check`` to 2.6 GB. Here the lab host
gets an nvidia-smi that hangs, then one that floods: the hung one is ended on the host by its deadline (no
process of it is left), and the flood is cut off on the host with one sentence (memory is measured by
benchmarks/hostile_commands.py).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mtptui.errors import UserError
from mtptui.ops.connect import open_session
from mtptui.remote.gpu import read_gpus
from tests.lab import operator_env

pytestmark = pytest.mark.ssh
ROOT = Path(__file__).resolve().parents[1]
HANG = "#!/bin/sh\n# a driver stuck in the kernel: the query never returns\nwhile :; do sleep 1; done\n"
FLOOD = "#!/bin/sh\n# a driver printing garbage without end (200 MB)\nhead -c 200000000 /dev/zero | tr '\\0' x\n"


def install(host, tmp_path: Path, text: str) -> None:
    program = tmp_path / "nvidia-smi"
    program.write_text(text)
    program.chmod(0o755)
    host.lab.install(program)


def stuck(host) -> list[str]:
    """What runs on the host for the stand-in nvidia-smi (its shell, or the sleep it waits in)."""
    out = host.lab.run("ps", "-eo", "pid=,args=").stdout
    return [line.strip() for line in out.splitlines() if "nvidia-smi" in line or "sleep 1" in line]


async def test_a_hung_nvidia_smi_is_ended_on_the_host_by_its_deadline(lab_process, tmp_path):
    install(lab_process, tmp_path, HANG)
    async with open_session(lab_process.config) as session:
        for _ in range(3):  # three polls of a dashboard, each given up after its deadline
            with pytest.raises(UserError, match=r"query the GPUs timed out after 1\.5 s on root@gpu-lab"):
                await read_gpus(session.transport, timeout_s=1.5)
        deadline = time.monotonic() + 10  # timeout(1) sends KILL two seconds after TERM
        while stuck(lab_process) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert stuck(lab_process) == []  # while the connection is still open: the host ended them itself


async def test_a_flood_of_output_is_cut_off_on_the_host_with_one_sentence(lab_process, tmp_path):
    install(lab_process, tmp_path, FLOOD)
    async with open_session(lab_process.config) as session:
        with pytest.raises(UserError, match=r"query the GPUs printed more than 1 MiB on root@gpu-lab; it was cut off"):
            await read_gpus(session.transport, timeout_s=60)
    assert stuck(lab_process) == []


def test_check_says_what_the_flooding_nvidia_smi_did_and_ends(lab_process, tmp_path):
    install(lab_process, tmp_path, FLOOD)
    lab_process.wait_ready()
    done = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "check", "lab", "--config",
                           str(lab_process.path)], capture_output=True, text=True, timeout=180, cwd=ROOT,
                          env=operator_env(lab_process.lab))
    line = next(line for line in done.stdout.splitlines() if "nvidia-smi" in line.split()[1:2])
    assert line.startswith("FAIL") and "printed more than 1 MiB" in line, done.stdout
    assert "Traceback" not in done.stderr
