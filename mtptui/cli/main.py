"""Entry point of the `mtptui` command: parse arguments, dispatch, turn user errors into one sentence.

Only argparse and the small command modules are imported here; every heavy library (Textual,
asyncssh, httpx, uvicorn) is imported inside the command that needs it, so `--help` is fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from mtptui import __version__
from mtptui.cli import commands
from mtptui.errors import UnknownHost, UserError
from mtptui.text import visible

DESCRIPTION = "Terminal dashboard and headless tools for SGLang inference servers."
EPILOG = "Run `mtptui HOST` for the dashboard of a configured host, or `mtptui demo` to try it on a simulated one."


def common_options() -> argparse.ArgumentParser:
    """Options every command accepts, before or after the subcommand."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS,
                        help="host file or directory searched first (also: MTPTUI_CONFIG)")
    parent.add_argument("--readonly", action="store_true", default=argparse.SUPPRESS,
                        help="refuse every action that changes the host")
    return parent


def build_parser() -> argparse.ArgumentParser:
    parent = common_options()
    parser = argparse.ArgumentParser(prog="mtptui", description=DESCRIPTION, epilog=EPILOG, parents=[parent])
    parser.add_argument("--version", action="version", version=f"mtptui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in commands.MODULES:
        module.register(sub, parent)
    return parser


def _split_host(argv: list[str]) -> list[str]:
    """`mtptui HOST [opts]` is shorthand for `mtptui open HOST [opts]`."""
    skip = False
    for index, arg in enumerate(argv):
        if skip or arg.startswith("-"):
            skip = arg == "--config"
            continue
        if arg in commands.NAMES:
            return argv
        return argv[:index] + ["open"] + argv[index:]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    argv = _split_host(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser()
    args = parser.parse_args(argv)
    args.config = getattr(args, "config", None)
    args.readonly = getattr(args, "readonly", False)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except UnknownHost as exc:
        print(visible(f"mtptui: {_or_a_command(exc, args.command)}"), file=sys.stderr)
        return exc.exit_code
    except UserError as exc:
        print(visible(f"mtptui: {exc}"), file=sys.stderr)  # it may quote a host's or a file's words
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _or_a_command(exc: UnknownHost, command: str) -> UnknownHost:
    """`mtptui benhc` (shorthand for `mtptui open benhc`) is a mistyped command as often as a mistyped host."""
    from mtptui.suggest import closest

    if command != "open":
        return exc
    return UnknownHost(exc.name, exc.searched, exc.hosts, closest(exc.name, commands.NAMES - {"open"}))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
