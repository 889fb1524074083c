"""`mtptui restart`: restart the server with a profile, watch it come up, roll back on failure."""

from __future__ import annotations

from mtptui.cli.commands._common import add, not_implemented

NAME = "restart"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "restart HOST with a launch profile and watch it come back")
    p.add_argument("host", metavar="HOST")
    p.add_argument("--profile", default=None, help="profile to launch (default: the known-good one)")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument("--dry-run", action="store_true", help="show what would change and stop")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    return not_implemented("restart")
