"""``mtptui sim``: check the SGLang command line like the real server, then run the simulated one.

Failures look like the real server's: argparse errors print SGLang's usage and ``sglang serve: error: ...``
(exit 2); errors while resolving the arguments print a traceback ending in the exception (exit 1); a crash
in a scheduler during startup is logged, and the process then dies of SIGKILL, as SGLang kills its tree.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

from mtptui.errors import UserError
from mtptui.engines.sglang.adaptive import TIERED
from mtptui.engines.sglang.flags import FlagError, FlagSet, parse_argv
from mtptui.engines.sglang.lint import check_launch
from mtptui.engines.sglang.versions import DEFAULT_VERSION
from mtptui.sim import crash
from mtptui.sim.boot import ContextTooLong, build_boot
from mtptui.sim.messages import VERSIONS
from mtptui.sim.model import lookup
from mtptui.sim.settings import SimSettings, as_int, from_flagset

DEFERRED = "ValueError: Speculative decoding for"  # raised by a scheduler after the weights are loaded


def _usage(version: str) -> str:
    from mtptui.engines.sglang.flags.resolve import build_parser

    return build_parser(version).format_usage()


def check_args(argv: list[str], version: str) -> FlagSet:
    """The validated flag set; FlagError as check_launch raises it (the scheduler-side crash excepted)."""
    flagset = parse_argv(argv, version)
    arch = lookup(flagset.model_path or "").arch
    try:
        return check_launch(argv, version, model_arch=arch)
    except FlagError as exc:
        if str(exc).startswith(DEFERRED):
            return flagset
        raise


def report_failure(message: str, version: str) -> int:
    """Print what SGLang prints when it refuses its arguments; the exit status it exits with."""
    if message.startswith("sglang serve: error:"):
        sys.stderr.write(_usage(version) + message + "\n")
        return 2
    sys.stderr.write("\n".join(crash.launch_traceback(message)) + "\n")
    return 1


def settings_for(argv: list[str], version: str) -> SimSettings | int:
    """Settings of a valid launch, or the exit status after printing SGLang's failure."""
    if version not in VERSIONS:
        raise UserError(f"unknown --sim-version {version!r} (known: {', '.join(VERSIONS)})")
    try:
        flagset = check_args(argv, version)
    except FlagError as exc:
        return report_failure(str(exc), version)
    settings = from_flagset(flagset, lookup(flagset.model_path or "").arch)
    settings.argv = list(argv)
    config = settings.resolved_args.get("speculative_adaptive_config")
    if settings.adaptive and settings.adaptive_start is None and version in TIERED:  # read while resolving
        return report_failure(f"FileNotFoundError: [Errno 2] No such file or directory: {config!r}", version)
    return settings


def run_sim(argv: list[str], *, host: str = "127.0.0.1", port: int | None = None, seed: int = 0,
            speed: float = 1.0, version: str = DEFAULT_VERSION, gpu_mem_gb: float = 48.0,
            knobs: dict[str, float | None] | None = None) -> int:
    """Run the simulated server in the foreground; returns the exit status (or dies like SGLang). ``knobs``:
    the test knobs of mtptui.sim.decode (acceptance, verify_slowdown), over the environment's."""
    from mtptui.sim.server import StartupFailed, serve

    settings = settings_for(argv, version)
    if isinstance(settings, int):
        return settings
    for name, value in (knobs or {}).items():
        if value is not None:
            setattr(settings, name, value)
    try:
        boot = build_boot(settings, gpu_mem_gb)
    except ContextTooLong as exc:
        return report_failure(f"ValueError: {exc}", version)
    port = port or as_int(settings.resolved_args.get("port") or 30000)
    try:
        return asyncio.run(serve(boot, host=host, port=port, seed=seed, speed=speed))
    except StartupFailed:
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
        return 137  # not reached
