"""Helpers shared by the subcommand modules."""

from __future__ import annotations

import argparse
import sys
from typing import TypeAlias


Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"  # argparse has no public name for it


def add(sub: Subparsers, parent: argparse.ArgumentParser, name: str, help: str,
        description: str | None = None) -> argparse.ArgumentParser:
    """A subparser that also takes the common options."""
    parser: argparse.ArgumentParser = sub.add_parser(name, parents=[parent], help=help, description=description or help)
    return parser


def add_drain_options(p: argparse.ArgumentParser) -> None:
    """--drain-timeout and --no-gateway, for every command that restarts the server (restart, tune); the default
    is mtptui.ops.restart.drain.DRAIN_TIMEOUT_S (None here: the command's drain_options fills it in)."""
    p.add_argument("--drain-timeout", type=float, default=None, metavar="SECONDS",
                   help="behind a gateway: how long to wait for the server to hold no request once it is out of the "
                        "gateway, before stopping without a change (default 60)")
    p.add_argument("--no-gateway", action="store_true",
                   help="restart without the gateway steps, even though the host file names a gateway (the "
                        "gateway keeps sending the server requests while it restarts)")


def print_json(obj: object) -> None:
    """JSON on stdout; characters that would drive a terminal are ``\\u`` escapes (the same JSON value)."""
    import json

    from mtptui.text import visible_json

    sys.stdout.write(visible_json(json.dumps(obj, indent=2, ensure_ascii=False)) + "\n")
