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


def print_json(obj: object) -> None:
    """JSON on stdout; characters that would drive a terminal are ``\\u`` escapes (the same JSON value)."""
    import json

    from mtptui.text import visible_json

    sys.stdout.write(visible_json(json.dumps(obj, indent=2, ensure_ascii=False)) + "\n")
