"""`mtptui flags lint`: validate an SGLang launch command line."""

from __future__ import annotations

import argparse

from mtptui.cli.commands._common import add, not_implemented

NAME = "flags"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "launch-flag tools")
    actions = p.add_subparsers(dest="flags_command", metavar="ACTION", required=True)
    lint = actions.add_parser("lint", parents=[parent], help="validate a launch command line",
                              description="Validate a launch command line; exit 0 clean, 1 on errors.")
    lint.add_argument("--version", dest="sglang_version", default=None, help="SGLang version (default 0.5.12.post1)")
    lint.add_argument("--json", action="store_true", help="findings as JSON")
    lint.add_argument("sglang_args", nargs=argparse.REMAINDER, metavar="-- SGLANG-ARGS")
    lint.set_defaults(run=run)


def run(args) -> int:
    return not_implemented("flags lint")
