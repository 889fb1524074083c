"""`mtptui restart`: restart the server with a profile, watch it come up, roll back on failure."""

from __future__ import annotations

import argparse

from mtptui.cli.commands._common import Subparsers, add, add_drain_options

NAME = "restart"


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "restart HOST with a launch profile and watch it come back",
            description="Restart HOST's SGLang server with a launch profile (the known-good one by default): show "
                        "the diff, apply it (systemd: back up and rewrite the unit, or the drop-in holding its "
                        "ExecStart=, daemon-reload, reset-failed, restart; process: stop the process group and "
                        "relaunch), watch the log until ready, and roll back what ran on a crash, a crash loop or a "
                        "timeout. A lock on the host refuses a second restart while one runs; the report ends with "
                        "what the host runs now.")
    p.add_argument("host", metavar="HOST")
    p.add_argument("--profile", default=None, help="profile to launch (default: the known-good one)")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument("--dry-run", action="store_true", help="show the diff and the exact commands, change nothing")
    p.add_argument("--json", action="store_true", help="report as JSON (progress goes to stderr)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="how long to wait for the server to be ready before rolling back (default 600)")
    p.add_argument("--force", action="store_true",
                   help="restart even when the lint says SGLang would refuse the profile")
    p.add_argument("--enable", action="store_true",
                   help="once the server is ready, enable the unit (systemctl enable: it starts at boot)")
    p.add_argument("--to-unit", nargs="?", const="", default=None, metavar="UNIT",
                   help="hand a hand-started server back to the systemd unit it replaced (UNIT, else the host "
                        "file's server.unit): stop it, write the unit with the profile, daemon-reload, start, "
                        "enable once ready; a failure relaunches the hand-started command line")
    p.add_argument("--drop-env", action="append", default=[], metavar="NAME",
                   help="leave the unit's Environment= variable NAME out of the new unit (by default the unit's "
                        "variables that the profile does not set are kept); repeatable")
    add_drain_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mtptui.cli.commands._restart_host import run_restart

    return run_restart(args)
