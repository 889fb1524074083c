"""`mtptui check HOST`: a doctor for a host, one line per check; exit 0 only when every check passes."""

from __future__ import annotations

import argparse

from mtptui.cli.commands._common import Subparsers, add

NAME = "check"
EPILOG = ("Checks, in order: ssh (reachable, host key known, login accepted), sudo (passwordless for what the "
          "systemd manager runs, when server.command_prefix has sudo), server (the unit and its ExecStart, or the "
          "process and what relaunches it), log (journal or file readable), api (through the SSH tunnel: version "
          "and model), nvidia-smi, model (the profile's model path exists). Nothing on the host is changed. "
          "Exit 0 when every check passes (warnings pass), 1 otherwise, 2 for an unknown host.")


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "a doctor for a host: one line per check with what to do when it fails")
    p.epilog = EPILOG
    p.add_argument("host", metavar="HOST")
    p.add_argument("--json", action="store_true", help="print one JSON object: host, ok, checks")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import os
    import sys

    from mtptui.cli.commands._common import print_json
    from mtptui.config.loader import find_host
    from mtptui.cli.hostkey_prompt import ask_on_terminal
    from mtptui.ops.check import Report, render_text, run_checks
    from mtptui.ops.connect import open_session

    path, host = find_host(args.host, args.config)

    async def doctor() -> Report:
        async with open_session(host, readonly=True, accept_host_key=ask_on_terminal) as session:
            return await run_checks(session, path)

    report = asyncio.run(doctor())
    if args.json:
        print_json(report.to_json())
    else:
        print(render_text(report, color=sys.stdout.isatty() and not os.environ.get("NO_COLOR")))
    return 0 if report.ok else 1
