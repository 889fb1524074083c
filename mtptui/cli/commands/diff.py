"""`mtptui diff`: running process vs systemd unit vs profile, or two files offline."""

from __future__ import annotations

from mtptui.cli.commands._common import add, not_implemented

NAME = "diff"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "launch flags side by side: running vs unit vs profile, or --left/--right")
    p.add_argument("host", nargs="?", metavar="HOST", help="host to compare live")
    p.add_argument("--profile", default=None, help="profile to compare (default: the known-good one)")
    p.add_argument("--left", default=None, help="offline: unit file, TOML profile or command-line file")
    p.add_argument("--right", default=None, help="offline: unit file, TOML profile or command-line file")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    return not_implemented("diff")
