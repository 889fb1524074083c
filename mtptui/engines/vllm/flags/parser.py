"""`vllm serve`'s argparse stage, run by Python's own argparse on the generated flag table.

The parser is built the way vLLM builds it (a `vllm` parser with a `serve` subcommand), so argparse itself
gives vLLM's messages: unknown options are refused by `vllm`, bad values by `vllm serve`, prefixes of a long
option are accepted when unambiguous, `--flag=value` and repeated options behave as they do under vLLM.
"""

from __future__ import annotations

import argparse
from functools import lru_cache
from typing import Any, NoReturn

from mtptui.engines.vllm.flags.converters import converter
from mtptui.engines.vllm.flags.errors import VllmRefusal
from mtptui.engines.vllm.flags.table import FlagTable, Option, load_table


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise VllmRefusal("SystemExit", f"{self.prog}: error: {message}", "argparse")


def _kwargs(option: Option) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"dest": option.dest, "default": option.default}
    kind = converter(option.type)
    if option.action in ("store_true", "store_false"):
        kwargs["action"] = option.action
    elif option.action == "boolean_optional":
        kwargs["action"] = argparse.BooleanOptionalAction
    else:
        kwargs["action"] = "append" if option.action == "append" else "store"
        if kind is not None:
            kwargs["type"] = kind
        if option.nargs is not None:
            kwargs["nargs"] = option.nargs
        if option.const is not None:
            kwargs["const"] = option.const
        if option.choices is not None:
            kwargs["choices"] = list(option.choices)
    return kwargs


def _add(parser: argparse.ArgumentParser, option: Option) -> None:
    kwargs = _kwargs(option)
    if not option.options:
        kwargs.pop("dest")
        parser.add_argument(option.dest, **kwargs)
        return
    names = [o for o in option.options if not o.startswith("--no-")] if option.action == "boolean_optional" \
        else list(option.options)
    parser.add_argument(*names, **kwargs)


@lru_cache(maxsize=4)
def _parsers(version: str) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    table: FlagTable = load_table(version)
    top = _Parser(prog="vllm", add_help=False)
    serve = top.add_subparsers(dest="subparser").add_parser("serve", add_help=False)
    serve.__class__ = _Parser
    for option in table.options:
        _add(serve, option)
    return top, serve


def parse_serve(args: list[str], version: str) -> argparse.Namespace:
    """The namespace `vllm serve ARGS` gets, or the refusal argparse gives."""
    top, _ = _parsers(version)
    return top.parse_args(["serve", *args])


def known_negations(version: str) -> set[str]:
    """The `--no-X` options (a YAML `key: false` becomes one where it exists)."""
    return {o for option in load_table(version).options for o in option.options if o.startswith("--no-")}


def serve_parser(version: str) -> argparse.ArgumentParser:
    """`vllm serve`'s own parser (its words without `serve`): refusals name `vllm serve`."""
    return _parsers(version)[1]
