"""STAND-IN (demo only): ``python -m sglang.launch_server ARGS`` runs ``mtptui sim`` with the same SGLang ARGS.

The startup pace is $MTPTUI_SIM_SPEED (set by `mtptui demo` from MTPTUI_DEMO_SPEED); token rates are real time.
The SGLang release it behaves as is $MTPTUI_SIM_RELEASE (default 0.5.12.post1, the mission's), as a host has
one installed.
"""

import os
import sys

from mtptui.cli.main import main
from mtptui.engines.sglang.versions import DEFAULT_VERSION


def _flag(name: str, default: str) -> str:
    args = sys.argv[1:]
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return default


if __name__ == "__main__":
    speed = os.environ.get("MTPTUI_SIM_SPEED", "1")
    version = os.environ.get("MTPTUI_SIM_RELEASE", DEFAULT_VERSION)
    host = _flag("--host", "127.0.0.1")
    sys.exit(main(["sim", "--host", "127.0.0.1" if host == "0.0.0.0" else host, "--speed", speed, "--seed", "0",
                   "--sim-version", version, "--", *sys.argv[1:]]))
