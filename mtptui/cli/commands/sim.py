"""`mtptui sim`: the simulated SGLang server in the foreground, log on stdout."""

from __future__ import annotations

import argparse

from mtptui.cli.commands._common import add, not_implemented

NAME = "sim"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "run the simulated SGLang server in the foreground, log on stdout")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: the SGLang --port, else 30000)")
    p.add_argument("--seed", type=int, default=0, help="random seed for reproducible output")
    p.add_argument("--speed", type=float, default=1.0, help="startup pacing multiplier (10 = ten times faster)")
    p.add_argument("--sim-version", default="0.5.12.post1", help="SGLang version whose log format to write")
    p.add_argument("sglang_args", nargs=argparse.REMAINDER, metavar="-- SGLANG-ARGS",
                   help="a real SGLang command line")
    p.set_defaults(run=run)


def run(args) -> int:
    return not_implemented("the simulated server")
