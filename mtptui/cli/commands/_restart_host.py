"""The terminal side of `mtptui restart`: print the plan, ask, run, report (JSON with --json)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from mtptui.errors import UserError
from mtptui.ops.readonly import refuse_if_readonly

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.ops.connect import HostSession
    from mtptui.ops.restart.plan import RestartPlan
    from mtptui.ops.restart.drain import DrainOptions, DrainPlan


def _profile_name(host: HostConfig, requested: str | None) -> str:
    from mtptui.ops.diff_live import default_profile

    if requested:
        host.own_profile(requested)
        return requested
    return default_profile(host)


def confirm(host: str, profile: str) -> None:
    """Ask on the terminal; refuse without one (a script must say --yes)."""
    if not sys.stdin.isatty():
        raise UserError(f"refusing to restart {host} without confirmation: stdin is not a terminal (pass --yes)")
    answer = input(f"Restart {host} with profile {profile}? [y/N] ")
    if answer.strip().lower() not in ("y", "yes"):
        raise UserError(f"restart of {host} cancelled; nothing was changed")


def drain_options(args: argparse.Namespace) -> DrainOptions:
    """The gateway steps the operator asked for (--no-gateway, --drain-timeout)."""
    from mtptui.ops.restart.drain import DRAIN_TIMEOUT_S, DrainOptions

    timeout = args.drain_timeout if args.drain_timeout is not None else DRAIN_TIMEOUT_S
    if not timeout > 0:
        raise UserError(f"--drain-timeout must be a number of seconds above 0, not {args.drain_timeout:g}")
    return DrainOptions(use_gateway=not args.no_gateway, timeout_s=timeout)


def refuse_dropping_traffic(drain: DrainPlan | None, host: str, what: str = "restart") -> None:
    """The last ready worker of its model in the gateway: its restart drops traffic, so only --yes goes on
    (``what``: restart, or tune, whose every arm is a restart)."""
    if drain is not None and drain.last:
        raise UserError(f"refusing to {what} {host} without --yes: {drain.note()}")


def run_restart(args: argparse.Namespace) -> int:
    from mtptui.config.loader import find_host

    _, host = find_host(args.host, args.config)
    profile = _profile_name(host, args.profile)
    if not args.dry_run:
        refuse_if_readonly(args.readonly, f"restart with profile {profile}", host.name)
    return asyncio.run(_restart(args, host, profile))


async def _restart(args: argparse.Namespace, host: HostConfig, profile: str) -> int:
    from mtptui.cli.commands._common import print_json
    from mtptui.cli.hostkey_prompt import ask_on_terminal
    from mtptui.ops.connect import open_session
    from mtptui.ops.restart.handback import host_file_advice, session_for
    from mtptui.ops.restart.run import DEFAULT_TIMEOUT_S, Restarter
    from mtptui.ops.restart.text import render_plan
    from mtptui.text import visible

    out = sys.stderr if args.json else sys.stdout
    async with open_session(host, readonly=args.readonly, accept_host_key=ask_on_terminal) as session:
        plan = await _plan(args, session, profile)
        if args.dry_run:
            if args.json:
                print_json({"dry_run": True, **plan.to_json()})
            else:
                print(visible(render_plan(plan)))
            return 0
        print(visible(render_plan(plan)), file=out)
        if not args.yes:
            refuse_dropping_traffic(plan.drain, plan.host)
            confirm(host.name, profile)
        restarter = Restarter(session_for(session, plan), plan, timeout_s=args.timeout or DEFAULT_TIMEOUT_S,
                              force=args.force, on_event=lambda event: print(visible(str(event)), file=out, flush=True))
        result = await restarter.run()  # a good restart also forgets an interrupted tune's marker
    if args.json:
        print_json({"dry_run": False, "plan": plan.to_json(), **result.to_json()})
    if not result.ok:
        print(visible(f"mtptui: {result.summary()}"), file=sys.stderr)
    elif advice := host_file_advice(plan, host):
        print(visible(f"note: {advice}"), file=out)
    return 0 if result.ok else 1


async def _plan(args: argparse.Namespace, session: HostSession, profile: str) -> RestartPlan:
    """The restart's plan, or with --to-unit the hand-back's (mtptui.ops.restart.handback)."""
    if args.to_unit is None:
        from mtptui.ops.restart.plan import plan_restart

        return await plan_restart(session, profile, drop_env=args.drop_env, enable=args.enable,
                                  drain=drain_options(args))
    from mtptui.ops.restart.handback import plan_handback

    if args.enable:
        raise UserError("--enable is part of --to-unit already: the hand-back enables the unit once it is ready")
    return await plan_handback(session, profile, args.to_unit or None, drop_env=args.drop_env)
