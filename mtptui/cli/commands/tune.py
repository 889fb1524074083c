"""`mtptui tune HOST`: restart with each arm of a grid, bench it, canary it, say which is best, keep it or not.

Heavy imports happen inside `run`, so `mtptui --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, TypeVar

from mtptui.cli.commands._common import Subparsers, add, add_drain_options
from mtptui.errors import UserError

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.ops.restart.drain import DrainOptions
    from mtptui.ops.tune.state import TuneEvent, TuneRun

Result = TypeVar("Result")

NAME = "tune"
EPILOG = ("Every arm is a restart, confirmed once for the whole tune (--yes skips the question); a crash or a "
          "timeout rolls that arm back. At the end the original launch is restored (--keep best keeps the best "
          "arm); Ctrl+C or a lost connection aborts and restores the original too. Behind a gateway each restart "
          "drains the server first, as mtptui restart does; between its restarts the arm is back in the gateway, "
          "so the gateway's traffic reaches it while it is measured. Refused under --readonly.")


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "find the best speculative settings of a host, prove them, keep them")
    p.epilog = EPILOG
    p.add_argument("host", metavar="HOST", help="host to tune")
    p.add_argument("--base", metavar="PROFILE", default=None, help="profile the arms derive from (default: known-good)")
    p.add_argument("--grid", metavar="NAME=V,...", nargs="+", default=None,
                   help="arms: steps=1,2,3,4 topk=1 draft=auto (the default); any flag by its profile name works; "
                        "over a vLLM profile (--base): tokens=1,2,3,4 (the default) method=ngram,...; with --arms "
                        "each dimension is one engine's and grids the named profiles of that engine")
    p.add_argument("--arms", metavar="PROFILE,...", default=None,
                   help="arms that are the host's own profiles, of either engine (e.g. restored,vllm-ngram3): "
                        "the \"more MTP or vLLM?\" tune; instead of --base; combines with --grid (each profile "
                        "is the base of its engine's dimensions: --arms restored,vllm-ngram2 --grid steps=1,3 "
                        "tokens=1,3 makes restored-steps1, ..., vllm-ngram2-tokens3)")
    p.add_argument("--concurrency", metavar="C,...", default="1,4,16", help="concurrencies to bench (default 1,4,16)")
    p.add_argument("--requests", metavar="N", type=int, default=4,
                   help="measured requests per concurrency, at least the concurrency (default 4)")
    p.add_argument("--max-tokens", metavar="N", type=int, default=256, help="output tokens per request (default 256)")
    p.add_argument("--prompts", metavar="NAME|FILE", default="rbtree", help="prompt set (default: rbtree)")
    p.add_argument("--canary-tokens", metavar="N", type=int, default=48,
                   help="tokens of each greedy canary answer (default 48)")
    p.add_argument("--keep", choices=("original", "best"), default="original",
                   help="what the host runs at the end (default: the original launch)")
    p.add_argument("--adaptive", action="store_true",
                   help="when the best steps differ by concurrency, measure an adaptive-speculation profile as one "
                        "more arm (without it the tune only proposes one)")
    p.add_argument("--json", dest="json_file", metavar="FILE", default=None, help="write the result here")
    p.add_argument("--save-best", metavar="NAME", default=None,
                   help="save the best arm as profile NAME in the host file (when an arm qualifies)")
    p.add_argument("--known-good", action="store_true", help="with --save-best: mark it the host's known-good profile")
    p.add_argument("--yes", action="store_true", help="do not ask before the first restart")
    p.add_argument("--timeout", metavar="S", type=float, default=600.0,
                   help="seconds each restart may take to be ready")
    add_drain_options(p)
    p.set_defaults(run=run)


def _confirm(host: str) -> None:
    if not sys.stdin.isatty():
        raise UserError(f"refusing to tune {host} without confirmation: stdin is not a terminal (pass --yes)")
    if input(f"Run the tune on {host}? Each arm restarts the server. [y/N] ").strip().lower() not in ("y", "yes"):
        raise UserError(f"tune of {host} cancelled; nothing was changed")


async def _tune(args: argparse.Namespace, host: HostConfig, drain: DrainOptions) -> TuneRun:
    from mtptui.cli.commands._restart_host import refuse_dropping_traffic
    from mtptui.cli.hostkey_prompt import ask_on_terminal
    from mtptui.ops.connect import open_session
    from mtptui.ops.tune.plan import plan_tune
    from mtptui.ops.tune.runner import Tuner
    from mtptui.text import visible

    async with open_session(host, readonly=args.readonly, accept_host_key=ask_on_terminal) as session:
        plan = await plan_tune(session, base=args.base, grid=args.grid, concurrency=args.concurrency,
                               requests=args.requests, max_tokens=args.max_tokens, prompts=args.prompts,
                               keep=args.keep, canary_tokens=args.canary_tokens, adaptive=args.adaptive,
                               drain=drain, arms=args.arms)
        print(visible("\n".join(plan.describe())), file=sys.stderr)
        if not args.yes:
            refuse_dropping_traffic(plan.gateway, host.name, "tune")
            _confirm(host.name)
        tuner = Tuner(session, plan, restart_timeout_s=args.timeout, on_event=_printer())
        return await until_signalled(tuner.run())


STOPS = ("SIGINT", "SIGTERM", "SIGHUP")  # Ctrl+C, kill, the terminal closed (tmux killed, SSH dropped)


async def until_signalled(work: Awaitable[Result]) -> Result:
    """``work`` in a task that the first of STOPS cancels (the tune then restores the original); a later one is
    only acknowledged, so a second Ctrl+C never cuts the restore short (asyncio's own raises KeyboardInterrupt)."""
    import asyncio
    import signal

    loop, task = asyncio.get_running_loop(), asyncio.ensure_future(work)
    signals = [getattr(signal, name) for name in STOPS if hasattr(signal, name)]
    received: list[str] = []

    def stop(name: str) -> None:
        received.append(name)
        if len(received) == 1:
            say(f"{name}: stopping the tune; the original launch is restored first")
            task.cancel()
        else:
            say(f"{name}: the original launch is being restored; it cannot be interrupted")

    for number in signals:
        loop.add_signal_handler(number, stop, signal.Signals(number).name)
    try:
        return await task
    finally:
        for number in signals:
            loop.remove_signal_handler(number)


def say(text: str) -> None:
    """One line on stderr, if there is still a terminal to write it to (SIGHUP: it may be gone)."""
    from mtptui.text import visible

    try:
        print(visible(text), file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _printer() -> Callable[[TuneEvent], None]:
    """Events on stderr, one line each: a restart's inner progress and the request counts are left out."""

    def show(event: TuneEvent) -> None:
        if not event.minor:
            say(str(event))

    return show


def run(args: argparse.Namespace) -> int:
    import asyncio

    from mtptui.cli.commands._restart_host import drain_options
    from mtptui.cli.commands.bench import _write_json
    from mtptui.config import find_host
    from mtptui.ops.readonly import refuse_if_readonly
    from mtptui.ops.tune.report import render_run
    from mtptui.text import visible

    path, host = find_host(args.host, args.config)
    refuse_if_readonly(args.readonly, "run a tune (every arm restarts the server)", host.name)
    _check_save_name(args)
    result = asyncio.run(_tune(args, host, drain_options(args)))
    if args.json_file:  # first: after SIGHUP the terminal the report goes to may be gone
        _write_json(args.json_file, result.to_json())
    try:
        print(visible(render_run(result)), flush=True)
    except OSError:  # the terminal is gone (SIGHUP): the JSON file has it all
        pass
    if args.save_best:
        print(visible(_save_best(args, host, path, result)))
    if result.aborted:
        return 130
    return 0 if result.kept == args.keep else 1


def _check_save_name(args: argparse.Namespace) -> None:
    name = args.save_best
    if args.known_good and not name:
        raise UserError("--known-good marks the profile --save-best saves: name it with --save-best NAME")
    if name is not None and (not name or not name.replace("-", "").replace("_", "").isalnum()):
        raise UserError(f"--save-best takes a profile name of letters, digits, - and _, not {name!r}")


def _save_best(args: argparse.Namespace, host: HostConfig, path: Path, result: TuneRun) -> str:
    """Save the best arm's profile into the host file (the user's copy for an example); what was done."""
    from mtptui.ops.profile_save import save_path, save_profile

    best = result.verdict.best if result.verdict else None
    if best is None:
        return f"not saved as {args.save_best}: no arm qualifies"
    target = save_path(host, path)
    profile = best.profile.model_copy(update={"note": f"best arm of a tune of {result.plan.base}"})
    save_profile(host, args.save_best, profile, target, known_good=args.known_good)
    what = " (the host's known-good profile)" if args.known_good else ""
    return f"saved {best.label} as profile {args.save_best}{what} to {target}"
