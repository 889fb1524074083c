"""`mtptui sim`: a simulated inference server in the foreground (SGLang by default, `--engine vllm`), logging
where the engine does (SGLang on stderr, vLLM on stdout; uvicorn's access lines on stdout)."""

from __future__ import annotations

import argparse

from mtptui.cli.commands._common import Subparsers, add
from mtptui.engines.registry import NAMES, engine
from mtptui.errors import UserError

NAME = "sim"
DESCRIPTION = (
    "Run a simulated inference server (no GPU): it checks the engine's command line like the real server, writes "
    "the engine's startup and serving log (SGLang's of the chosen version on stderr; vLLM's on stdout), and serves "
    "its HTTP API and metrics. `--engine vllm -- MODEL [vllm serve flags]` plays vLLM 0.32.0 on the simulated GPU "
    "host. GET /sim/requests (not part of either engine) lists each request's server-side truth."
)


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "run a simulated SGLang or vLLM server in the foreground", DESCRIPTION)
    p.add_argument("--engine", choices=NAMES, default=None, help="which engine to play (default sglang)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None,
                   help="port (default: the engine's --port, else SGLang's 30000 or vLLM's 8000)")
    p.add_argument("--seed", type=int, default=0, help="random seed for reproducible output")
    p.add_argument("--speed", type=float, default=1.0,
                   help="startup pacing multiplier (10 = ten times faster); token rates do not change")
    p.add_argument("--sim-version", default=None,
                   help="engine version to behave as (SGLang: 0.5.12.post1 (default), 0.5.23; vLLM: 0.32.0)")
    p.add_argument("--sim-gpu-mem-gb", type=float, default=48.0, help="memory of each simulated GPU (default 48)")
    p.add_argument("--sim-acceptance", type=float, default=None, metavar="F",
                   help="multiply the probability of every draft position by F (0.2: a workload the draft head "
                        "barely predicts; adaptive speculation shifts down); $MTPTUI_SIM_ACCEPTANCE in the "
                        "server's environment does the same")
    p.add_argument("--sim-verify-slowdown", type=float, default=None, metavar="S",
                   help="multiply the target's verify time by S (1.14: a slower kernel, same accept length); "
                        "$MTPTUI_SIM_VERIFY_SLOWDOWN in the server's environment does the same")
    p.add_argument("sglang_args", nargs=argparse.REMAINDER, metavar="-- ENGINE-ARGS",
                   help="a real command line of the engine (SGLang's arguments, or vLLM's MODEL [flags])")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    argv = list(args.sglang_args)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if args.speed <= 0:
        raise UserError("--speed must be a positive number")
    if args.sim_gpu_mem_gb <= 0:
        raise UserError("--sim-gpu-mem-gb must be a positive number")
    for name in ("sim_acceptance", "sim_verify_slowdown"):
        if getattr(args, name) is not None and getattr(args, name) <= 0:
            raise UserError(f"--{name.replace('_', '-')} must be a positive number")
    chosen = engine(args.engine)
    if chosen.simulate is None:
        raise UserError(f"mtptui has no simulated {chosen.label} server")
    return chosen.simulate(argv, host=args.host, port=args.port, seed=args.seed, speed=args.speed,
                           version=args.sim_version or chosen.default_version, gpu_mem_gb=args.sim_gpu_mem_gb,
                           knobs={"acceptance": args.sim_acceptance, "verify_slowdown": args.sim_verify_slowdown})
