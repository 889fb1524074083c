"""`mtptui sim --engine vllm`: judge the command line as `vllm serve` does, then run the simulated vLLM.

The judge is the knowledge layer's (held to vLLM's own argument code by the differential test). Refusals look
like the real server's: argparse's usage and `vllm serve: error: ...` on stderr (exit 2, nothing logged); a
refusal of the engine arguments after the banner and the non-default arguments were logged, with the lines of
the config classes that were built before the one that raised, and vLLM's traceback on stderr (exit 1).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from mtptui.engines.vllm.flags.errors import Verdict
from mtptui.engines.vllm.flags.judge import judged
from mtptui.engines.vllm.flags.table import DEFAULT_VERSION
from mtptui.engines.vllm.sim import crash
from mtptui.engines.vllm.sim.boot import VllmBoot, build_boot
from mtptui.engines.vllm.sim.logfmt import VllmLog
from mtptui.engines.vllm.sim.model import ServedModel, served_model
from mtptui.engines.vllm.sim.settings import VllmSettings, from_namespace, non_default_args
from mtptui.errors import UserError

SERVE_USAGE = "usage: vllm serve [model_tag] [options]"
TOP_USAGE = ("usage: vllm [-h] [-v]\n"
             "            {chat,complete,serve,launch,bench,collect-env,download-kernels,preload,run-batch,snapshot}\n"
             "            ...")


def _facts(path: str) -> dict[str, Any] | None:
    """A model the simulated host has: its facts; None for a directory here (the judge reads it itself)."""
    model = served_model(path)
    return None if model.local else model.config


def _argparse_refusal(verdict: Verdict) -> int:
    message = (verdict.message or "").replace("<function loads>", f"<function loads at {id(json.loads):#x}>")
    usage = TOP_USAGE if message.startswith("vllm: error:") else SERVE_USAGE
    sys.stderr.write(f"{usage}\n{message}\n")
    return 2


def _engine_refusal(verdict: Verdict, namespace: Any, version: str) -> int:
    """What vLLM printed before the config class that refused, then its traceback; exit 1."""
    from mtptui.engines.vllm.sim.startup import announce_refused

    if namespace is not None and verdict.stage != "validate":
        announce_refused(VllmLog(), namespace, non_default_args(namespace, version), verdict)
    lines = crash.refusal_traceback(verdict.error_class, verdict.message, verdict.errors)
    sys.stderr.write("\n".join(lines) + "\n")
    return 1


def settings_for(argv: list[str], version: str = DEFAULT_VERSION, serve: bool = True) -> VllmSettings | int:
    """The settings of an accepted launch, or the exit status after printing vLLM's refusal."""
    verdict, namespace = judged(argv, version, dict(os.environ), serve, _facts)
    if not verdict.accepted:
        return _argparse_refusal(verdict) if verdict.stage == "argparse" else \
            _engine_refusal(verdict, namespace, version)
    model: ServedModel = served_model(str(namespace.model))
    settings = from_namespace(namespace, verdict.resolved or {}, model, version, verdict.warnings, dict(os.environ))
    settings.argv = list(argv)
    return settings


def run_sim(argv: list[str], *, host: str = "127.0.0.1", port: int | None = None, seed: int = 0,
            speed: float = 1.0, version: str = DEFAULT_VERSION, gpu_mem_gb: float = 48.0,
            serve: bool = True, knobs: dict[str, float | None] | None = None) -> int:
    """Run the simulated vLLM in the foreground; the exit status vLLM would exit with. ``knobs``: the test knobs
    of mtptui.sim.decode (acceptance, verify_slowdown), over the environment's."""
    from mtptui.engines.vllm.sim.server import serve as serve_forever

    if not argv:
        raise UserError("give the model and vLLM's flags after --, e.g. mtptui sim --engine vllm -- /models/qwen "
                        "--max-model-len 8192")
    settings = settings_for(argv, version, serve)
    if isinstance(settings, int):
        return settings
    for name, value in (knobs or {}).items():
        if value is not None:
            setattr(settings, name, value)
    boot: VllmBoot = build_boot(settings, gpu_mem_gb)
    return asyncio.run(serve_forever(boot, host=host, port=port or settings.port, seed=seed, speed=speed))
