"""`mtptui restart` itself on the lab host behind the real gateway, under a steady streamed load: the drained
restart against the same restart with ``--no-gateway``. Requests sent / whole / cut / failed, drain time, total.

    sudo .venv/bin/python benchmarks/gateway_restart_lab.py [--runs 3] [--clients 4] [--max-tokens 64]
        [--kill-mode mixed] [--stop-timeout 3]

Needs what the lab host needs (root, iproute2, netcat; see tests/lab). The host runs the restored profile from
its unit (``KillMode`` and ``TimeoutStopSec`` as given: in the lab's nspawn machine systemd cannot kill a control
group, so control-group is not modelled faithfully there), a second replica by hand on 30001, and ``smg launch
--policy round_robin`` on 30080 in front of both (tests/gateway_lab.py). ``--clients`` stream chats through the
gateway from the host's network namespace (tests/stream_load.py) from a few seconds before
``mtptui restart lab --profile restored --yes --json [--no-gateway]`` until the gateway lists the server ready
again, plus two seconds; every request of that window is counted. Drain time and total come from the restart's
own JSON report (``gateway.drain_s``, ``elapsed_s``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.gateway_lab import (SERVER, REPLICA, LabLoad, lab_gateway_lists, start_lab_replica,  # noqa: E402
                               start_lab_replicas_gateway, stop_lab_gateway, with_lab_gateway)
from tests.lab import Lab, lab_host_file, lab_missing, operator_env  # noqa: E402
from tests.lab.hosts import UNIT, unit_text  # noqa: E402


def one_restart(host, tmp: Path, args, plain: bool) -> dict:
    load = LabLoad(host, tmp, clients=args.clients, max_tokens=args.max_tokens)
    time.sleep(args.settle)
    command = [sys.executable, "-m", "mtptui.cli.main", "restart", "lab", "--profile", "restored", "--config",
               str(host.path), "--yes", "--json", *(["--no-gateway"] if plain else [])]
    done = subprocess.run(command, cwd=ROOT, env=operator_env(host.lab), capture_output=True, text=True, timeout=600)
    lab_gateway_lists(host, {SERVER: "ready"}, timeout=120)
    time.sleep(2)
    tally = load.tally()
    report = json.loads(done.stdout) if done.stdout.strip() else {}
    return {"exit": done.returncode, "tally": tally, "elapsed_s": report.get("elapsed_s"),
            "drain_s": (report.get("gateway") or {}).get("drain_s"), "stderr": done.stderr.strip()[-300:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--kill-mode", default="mixed")
    parser.add_argument("--stop-timeout", default="3")
    args = parser.parse_args()
    if missing := lab_missing():
        sys.exit(missing)
    lab = Lab(Path(tempfile.mkdtemp(prefix="mtptui-gateway-lab-"))).start()
    gateway = None
    try:
        host = lab_host_file(lab, lab.root / "lab.toml", "systemd")
        unit = unit_text(host, "restored").replace(
            "[Service]\n", f"[Service]\nKillMode={args.kill_mode}\nTimeoutStopSec={args.stop_timeout}\n")
        host.unit_file.write_text(unit)
        lab.systemctl("daemon-reload")
        lab.systemctl("start", UNIT)
        host.wait_ready()
        start_lab_replica(host)
        gateway = start_lab_replicas_gateway(host)
        lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=120)
        with_lab_gateway(host)
        print(f"KillMode={args.kill_mode}, TimeoutStopSec={args.stop_timeout}, {args.clients} clients, "
              f"{args.max_tokens} tokens each")
        print("| restart | run | sent | whole | cut | failed | drain s | total s | exit |")
        print("|---|---|---|---|---|---|---|---|---|")
        for run in range(1, args.runs + 1):
            for plain in (False, True):
                found = one_restart(host, lab.root, args, plain)
                t = found["tally"]
                drain = f"{found['drain_s']:.1f}" if found["drain_s"] is not None else "-"
                total = f"{found['elapsed_s']:.1f}" if found["elapsed_s"] is not None else "-"
                print(f"| {'--no-gateway' if plain else 'drained'} | {run} | {t.get('sent')} | {t.get('whole')} | "
                      f"{t.get('cut')} | {t.get('failed')} | {drain} | {total} | {found['exit']} |", flush=True)
                if found["exit"]:
                    print(f"  {found['stderr']}", file=sys.stderr)
    finally:
        if gateway is not None:
            stop_lab_gateway(gateway)
        lab.stop()


if __name__ == "__main__":
    main()
