"""The terminal side of `mtptui restart`: print the plan, ask, run, report (JSON with --json)."""

from __future__ import annotations

import asyncio
import sys

from mtptui.errors import UserError
from mtptui.ops.readonly import refuse_if_readonly


def _profile_name(host, requested: str | None) -> str:
    from mtptui.ops.diff_live import default_profile

    if requested:
        host.profile(requested)
        return requested
    return default_profile(host)


def confirm(host: str, profile: str) -> None:
    """Ask on the terminal; refuse without one (a script must say --yes)."""
    if not sys.stdin.isatty():
        raise UserError(f"refusing to restart {host} without confirmation: stdin is not a terminal (pass --yes)")
    answer = input(f"Restart {host} with profile {profile}? [y/N] ")
    if answer.strip().lower() not in ("y", "yes"):
        raise UserError(f"restart of {host} cancelled; nothing was changed")


def run_restart(args) -> int:
    from mtptui.config.loader import find_host

    _, host = find_host(args.host, args.config)
    profile = _profile_name(host, args.profile)
    if not args.dry_run:
        refuse_if_readonly(args.readonly, f"restart with profile {profile}", host.name)
    return asyncio.run(_restart(args, host, profile))


async def _restart(args, host, profile: str) -> int:
    from mtptui.cli.commands._common import print_json
    from mtptui.ops.connect import ask_on_terminal, open_session
    from mtptui.ops.restart import plan_restart
    from mtptui.ops.restart_run import DEFAULT_TIMEOUT_S, Restarter
    from mtptui.ops.restart_text import render_plan
    from mtptui.text import visible

    out = sys.stderr if args.json else sys.stdout
    async with open_session(host, readonly=args.readonly, accept_host_key=ask_on_terminal) as session:
        plan = await plan_restart(session, profile, drop_env=args.drop_env)
        if args.dry_run:
            if args.json:
                print_json({"dry_run": True, **plan.to_json()})
            else:
                print(visible(render_plan(plan)))
            return 0
        print(visible(render_plan(plan)), file=out)
        if not args.yes:
            confirm(host.name, profile)
        restarter = Restarter(session, plan, timeout_s=args.timeout or DEFAULT_TIMEOUT_S, force=args.force,
                              on_event=lambda event: print(visible(str(event)), file=out, flush=True))
        result = await restarter.run()
    if args.json:
        print_json({"dry_run": False, "plan": plan.to_json(), **result.to_json()})
    if not result.ok:
        print(visible(f"mtptui: {result.summary()}"), file=sys.stderr)
    return 0 if result.ok else 1
