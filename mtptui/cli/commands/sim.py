"""`mtptui sim`: the simulated SGLang server in the foreground, logging where SGLang does (stderr; access lines
on stdout)."""

from __future__ import annotations

import argparse

from mtptui.cli.commands._common import add
from mtptui.errors import UserError
from mtptui.sglang.versions import DEFAULT_VERSION

NAME = "sim"
DESCRIPTION = (
    "Run a simulated SGLang server (no GPU): it checks the SGLang command line like the real server, writes "
    "the real startup and batch log of the chosen version to stderr (uvicorn access lines to stdout, as SGLang), "
    "and serves that version's HTTP API. "
    "GET /sim/requests (not part of SGLang) lists each request's server-side truth."
)


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "run the simulated SGLang server in the foreground (log on stderr, like SGLang)",
            DESCRIPTION)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: the SGLang --port, else 30000)")
    p.add_argument("--seed", type=int, default=0, help="random seed for reproducible output")
    p.add_argument("--speed", type=float, default=1.0,
                   help="startup pacing multiplier (10 = ten times faster); token rates do not change")
    p.add_argument("--sim-version", default=DEFAULT_VERSION, help="SGLang version to behave as (0.5.12.post1, 0.5.23)")
    p.add_argument("--sim-gpu-mem-gb", type=float, default=48.0, help="memory of each simulated GPU (default 48)")
    p.add_argument("sglang_args", nargs=argparse.REMAINDER, metavar="-- SGLANG-ARGS",
                   help="a real SGLang command line")
    p.set_defaults(run=run)


def run(args) -> int:
    argv = list(args.sglang_args)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if args.speed <= 0:
        raise UserError("--speed must be a positive number")
    if args.sim_gpu_mem_gb <= 0:
        raise UserError("--sim-gpu-mem-gb must be a positive number")
    from mtptui.sim.launch import run_sim

    return run_sim(argv, host=args.host, port=args.port, seed=args.seed, speed=args.speed,
                   version=args.sim_version, gpu_mem_gb=args.sim_gpu_mem_gb)
