"""`mtptui HOST`: the live dashboard of a configured host."""

from __future__ import annotations

from mtptui.cli.commands._common import add, not_implemented

NAME = "open"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "open the dashboard of HOST (same as `mtptui HOST`)")
    p.add_argument("host", metavar="HOST", help="host name from a host file, e.g. ct129")
    p.add_argument("--theme", default=None, help="theme name (see themes/)")
    p.set_defaults(run=run)


def run(args) -> int:
    from mtptui.config import find_host

    find_host(args.host, args.config)
    return not_implemented("the dashboard")
