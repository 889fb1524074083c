"""`mtptui diff`: running process vs systemd unit vs profile, or two files offline.

Exits like diff(1): 0 when the sides are the same, 1 when they differ, 2 when they could not be compared.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mtptui.cli.commands._common import Subparsers, add, print_json
from mtptui.errors import UserError
from mtptui.engines.sglang.versions import DEFAULT_VERSION

if TYPE_CHECKING:
    from mtptui.engines.sglang.flags.diff import Diff

NAME = "diff"


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "launch flags side by side: running vs unit vs profile, or --left/--right",
            description="Launch flags side by side. Offline: --left and --right each name a systemd unit file, a "
                        "TOML profile (FILE.toml[:PROFILE]), a file holding a command line, or HOST:PROFILE "
                        "(e.g. ct129:restored).")
    p.add_argument("host", nargs="?", metavar="HOST", help="host to compare live")
    p.add_argument("--profile", default=None, help="profile to compare (default: the known-good one)")
    p.add_argument("--left", default=None, help="offline: unit file, TOML profile, command-line file or HOST:PROFILE")
    p.add_argument("--right", default=None, help="offline: unit file, TOML profile, command-line file or HOST:PROFILE")
    p.add_argument("--version", dest="sglang_version", default=None,
                   help=f"SGLang version for both sides (default: the host's, else {DEFAULT_VERSION})")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.set_defaults(run=run)


SAME, DIFFERENT, TROUBLE = 0, 1, 2


def run(args: argparse.Namespace) -> int:
    """diff(1)'s exit status: a user error (bad file, unknown host, unreachable host) is trouble, not a difference."""
    try:
        return _compare(args)
    except UserError as exc:
        exc.exit_code = TROUBLE
        raise


def exit_status(diff: Diff) -> int:
    return SAME if diff.empty else DIFFERENT


def _compare(args: argparse.Namespace) -> int:
    if args.left is None and args.right is None:
        if args.host:  # live: running vs unit vs profile, over the host's transport (mtptui.ops.diff_live)
            from mtptui.cli.commands._diff_host import run_host

            return run_host(args)
        raise UserError("give HOST, or --left A --right B")
    if args.left is None or args.right is None:
        raise UserError("--left and --right go together")
    if args.host:
        raise UserError("give either HOST or --left/--right, not both")
    return _offline(args)


def _offline(args: argparse.Namespace) -> int:
    from mtptui.engines.sglang.flags.diff import diff_flagsets
    from mtptui.engines.sglang.flags.diff_text import render_diff
    from mtptui.ops.diff_sources import load_source
    from mtptui.engines.sglang.flags.table import load_table

    if args.sglang_version:
        load_table(args.sglang_version)
    sides = [load_source(spec, args.sglang_version, args.config) for spec in (args.left, args.right)]
    diff = diff_flagsets(sides)
    if args.json:
        print_json(diff.to_json())
    else:
        from mtptui.text import visible

        print(visible(render_diff(diff)))
    return exit_status(diff)
