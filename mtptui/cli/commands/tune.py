"""`mtptui tune HOST`: restart with each arm of a grid, bench it, canary it, say which is best, keep it or not.

Heavy imports happen inside `run`, so `mtptui --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys

from mtptui.cli.commands._common import add
from mtptui.errors import UserError

NAME = "tune"
EPILOG = ("Every arm is a restart, confirmed once for the whole tune (--yes skips the question); a crash or a "
          "timeout rolls that arm back. At the end the original launch is restored (--keep best keeps the best "
          "arm); Ctrl+C or a lost connection aborts and restores the original too. Refused under --readonly.")


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "find the best speculative settings of a host, prove them, keep them")
    p.epilog = EPILOG
    p.add_argument("host", metavar="HOST", help="host to tune")
    p.add_argument("--base", metavar="PROFILE", default=None, help="profile the arms derive from (default: known-good)")
    p.add_argument("--grid", metavar="NAME=V,...", nargs="+", default=None,
                   help="arms: steps=1,2,3,4 topk=1 draft=auto (the default); any flag by its profile name works")
    p.add_argument("--concurrency", metavar="C,...", default="1,4,16", help="concurrencies to bench (default 1,4,16)")
    p.add_argument("--requests", metavar="N", type=int, default=4,
                   help="measured requests per concurrency, at least the concurrency (default 4)")
    p.add_argument("--max-tokens", metavar="N", type=int, default=256, help="output tokens per request (default 256)")
    p.add_argument("--prompts", metavar="NAME|FILE", default="rbtree", help="prompt set (default: rbtree)")
    p.add_argument("--canary-tokens", metavar="N", type=int, default=48,
                   help="tokens of each greedy canary answer (default 48)")
    p.add_argument("--keep", choices=("original", "best"), default="original",
                   help="what the host runs at the end (default: the original launch)")
    p.add_argument("--json", dest="json_file", metavar="FILE", default=None, help="write the result here")
    p.add_argument("--save-best", metavar="NAME", default=None,
                   help="save the best arm as profile NAME in the host file (when an arm qualifies)")
    p.add_argument("--known-good", action="store_true", help="with --save-best: mark it the host's known-good profile")
    p.add_argument("--yes", action="store_true", help="do not ask before the first restart")
    p.add_argument("--timeout", metavar="S", type=float, default=600.0,
                   help="seconds each restart may take to be ready")
    p.set_defaults(run=run)


def _confirm(host: str) -> None:
    if not sys.stdin.isatty():
        raise UserError(f"refusing to tune {host} without confirmation: stdin is not a terminal (pass --yes)")
    if input(f"Run the tune on {host}? Each arm restarts the server. [y/N] ").strip().lower() not in ("y", "yes"):
        raise UserError(f"tune of {host} cancelled; nothing was changed")


async def _tune(args, host):
    from mtptui.ops.connect import ask_on_terminal, open_session
    from mtptui.ops.tune.plan import plan_tune
    from mtptui.ops.tune.runner import Tuner
    from mtptui.text import visible

    async with open_session(host, readonly=args.readonly, accept_host_key=ask_on_terminal) as session:
        plan = await plan_tune(session, base=args.base, grid=args.grid, concurrency=args.concurrency,
                               requests=args.requests, max_tokens=args.max_tokens, prompts=args.prompts,
                               keep=args.keep, canary_tokens=args.canary_tokens)
        print(visible("\n".join(plan.describe())), file=sys.stderr)
        if not args.yes:
            _confirm(host.name)
        tuner = Tuner(session, plan, restart_timeout_s=args.timeout, on_event=_printer())
        return await tuner.run()


def _printer():
    """Events on stderr, one line each: a restart's inner progress and the request counts are left out."""
    from mtptui.text import visible

    def show(event) -> None:
        if not event.minor:
            print(visible(str(event)), file=sys.stderr, flush=True)

    return show


def run(args: argparse.Namespace) -> int:
    import asyncio

    from mtptui.cli.commands.bench import _write_json
    from mtptui.config import find_host
    from mtptui.ops.readonly import refuse_if_readonly
    from mtptui.ops.tune.report import render_run
    from mtptui.text import visible

    path, host = find_host(args.host, args.config)
    refuse_if_readonly(args.readonly, "run a tune (every arm restarts the server)", host.name)
    _check_save_name(args)
    result = asyncio.run(_tune(args, host))
    print(visible(render_run(result)))
    if args.save_best:
        print(visible(_save_best(args, host, path, result)))
    if args.json_file:
        _write_json(args.json_file, result.to_json())
    if result.aborted:
        return 130
    return 0 if result.kept == args.keep else 1


def _check_save_name(args) -> None:
    name = args.save_best
    if args.known_good and not name:
        raise UserError("--known-good marks the profile --save-best saves: name it with --save-best NAME")
    if name is not None and (not name or not name.replace("-", "").replace("_", "").isalnum()):
        raise UserError(f"--save-best takes a profile name of letters, digits, - and _, not {name!r}")


def _save_best(args, host, path, result) -> str:
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
