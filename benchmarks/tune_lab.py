"""A whole `mtptui tune` on the lab host in the mission's bad redeploy, as an operator would run it.

    sudo .venv/bin/python benchmarks/tune_lab.py [--manager systemd|process] [--concurrency 1,4,16]
        [--requests 8] [--max-tokens 128] [--json benchmarks/out/tune-lab.json]

Needs what the lab host needs (root, iproute2, netcat; see tests/lab). The host runs redeploy-1step (steps 1,
one running request) from its unit (or by hand); the stand-in nvidia-smi says 2x RTX A6000. The tune derives
the default grid (steps 1-4, topk 1, draft tokens auto) from the known-good profile, benches each arm through
the SSH tunnel, canaries it, and puts the redeploy back. Prints the tune's own report, the JSON result's path
and how long it took. The simulated server decodes in real time, so the figures are the model's, not a GPU's.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lab import Lab, lab_host_file, lab_missing, operator_env, start_server  # noqa: E402
from tests.sshd import NVIDIA_SMI  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manager", choices=("systemd", "process"), default="systemd")
    parser.add_argument("--concurrency", default="1,4,16")
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--json", default=str(ROOT / "benchmarks" / "out" / "tune-lab.json"))
    args = parser.parse_args()
    if missing := lab_missing():
        sys.exit(missing)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    lab = Lab(Path(tempfile.mkdtemp(prefix="mtptui-tune-lab-"))).start()
    try:
        host = lab_host_file(lab, lab.root / "lab.toml", args.manager)
        lab.install(NVIDIA_SMI)
        start_server(host, "redeploy-1step")
        host.wait_ready()
        command = [sys.executable, "-m", "mtptui.cli.main", "tune", "lab", "--config", str(host.path),
                   "--concurrency", args.concurrency, "--requests", str(args.requests), "--max-tokens",
                   str(args.max_tokens), "--yes", "--json", args.json]
        started = time.monotonic()
        result = subprocess.run(command, cwd=ROOT, env={**operator_env(lab), "PYTHONPATH": str(ROOT)})
        print(f"exit {result.returncode} after {time.monotonic() - started:.0f} s; JSON: {args.json}")
    finally:
        lab.stop()


if __name__ == "__main__":
    main()
