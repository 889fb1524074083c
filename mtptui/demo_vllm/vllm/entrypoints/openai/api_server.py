"""STAND-IN (demo only): ``python -m vllm.entrypoints.openai.api_server ARGS`` runs the simulated vLLM with ARGS.

vLLM's API-server module reads the same options as `vllm serve` without its positional model (`--model M`).
The startup pace is $MTPTUI_SIM_SPEED (set by `mtptui demo` from MTPTUI_DEMO_SPEED); token rates are real time.
A `--host 0.0.0.0` listens on 127.0.0.1 only: the demo's server is this machine's.
"""

import os
import sys

from mtptui.engines.vllm.sim.launch import run_sim
from mtptui.errors import UserError


def _host(args: list[str]) -> str:
    for index, arg in enumerate(args):
        if arg == "--host" and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith("--host="):
            return arg.split("=", 1)[1]
    return "127.0.0.1"


if __name__ == "__main__":
    args = sys.argv[1:]
    host = _host(args)
    speed = float(os.environ.get("MTPTUI_SIM_SPEED", "1"))
    try:
        sys.exit(run_sim(args, host="127.0.0.1" if host in ("0.0.0.0", "") else host, speed=speed, serve=False))
    except UserError as exc:
        print(f"mtptui: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
