"""`mtptui HOST`: the live dashboard of a configured host."""

from __future__ import annotations

import argparse

from mtptui.cli.commands._common import Subparsers, add

NAME = "open"


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "open the dashboard of HOST (same as `mtptui HOST`)")
    p.add_argument("host", metavar="HOST", help="host name from a host file, e.g. ct129")
    p.add_argument("--theme", default=None, help="theme name (see themes/): mtptui-dark (default), mtptui-light")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mtptui.cli.commands._dashboard import check_theme, dashboard_app, run_dashboard
    from mtptui.config import find_host

    host_path, host = find_host(args.host, args.config)
    check_theme(args.theme)
    run_dashboard(dashboard_app(host_path, host, readonly=args.readonly, theme=args.theme))
    return 0

