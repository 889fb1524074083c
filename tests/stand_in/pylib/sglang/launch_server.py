"""STAND-IN: ``python -m sglang.launch_server ARGS`` runs ``mtptui sim`` with the same SGLang ARGS.

The simulated server listens where --host/--port say and paces its startup by $MTPTUI_SIM_SPEED.
"""

import os
import sys

from mtptui.cli.main import main


def _flag(name, default):
    args = sys.argv[1:]
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return default


if __name__ == "__main__":
    speed = os.environ.get("MTPTUI_SIM_SPEED", "100")
    sys.exit(main(["sim", "--host", _flag("--host", "127.0.0.1"), "--speed", speed, "--", *sys.argv[1:]]))
