"""Helpers shared by the subcommand modules."""

from __future__ import annotations

import argparse
import sys

from mtptui.errors import UserError


def not_implemented(feature: str) -> int:
    """What an unfinished command says: one sentence, exit 1."""
    raise UserError(f"{feature} is not implemented yet")


def add(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser, name: str, help: str,
        description: str | None = None) -> argparse.ArgumentParser:
    """A subparser that also takes the common options."""
    return sub.add_parser(name, parents=[parent], help=help, description=description or help)


def print_json(obj: object) -> None:
    """JSON on stdout; characters that would drive a terminal are ``\\u`` escapes (the same JSON value)."""
    import json

    from mtptui.text import visible_json

    sys.stdout.write(visible_json(json.dumps(obj, indent=2, ensure_ascii=False)) + "\n")
