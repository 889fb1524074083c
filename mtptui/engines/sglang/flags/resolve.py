"""Resolve SGLang arguments exactly as its argparse parser does (aliases, unique prefixes, types, choices).

The parser is a real ``argparse.ArgumentParser(prog="sglang serve")`` built from the version's flag table,
so ambiguity, unknown options and bad values give argparse's own messages. Every action's ``dest`` is the
flag's primary name, and defaults are suppressed, so the result holds only what the command line set.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any, Callable, NoReturn

from mtptui.engines.sglang.flags.argv_parts import parse_in_parts
from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.sglang.flags.table import PROG, FlagSpec, FlagTable, load_table

_HUMAN = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def human_readable_int(text: str) -> int:
    """SGLang's context-length type: plain ints, SI suffixes (k, M, G, T, decimals allowed), IEC (Ki, Mi, Gi, Ti).

    Bad values raise argparse.ArgumentTypeError with SGLang's own sentence, so argparse reports it as SGLang does.
    """
    value = text.strip()
    match = _HUMAN.fullmatch(value)
    if match:
        number, suffix = match.groups()
        if suffix in _IEC:
            if "." in number:
                raise argparse.ArgumentTypeError(
                    f"Decimals are not allowed with IEC suffixes like '{suffix}'. Use an integer IEC value such as "
                    f"'{int(Decimal(number))}{suffix}', or an SI value such as '{number}{suffix[0]}'.")
            return int(number) * _IEC[suffix]
        return int(Decimal(number) * _SI[suffix])
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"Invalid integer value: '{value}'. Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes "
            "(1Ki, 1Mi). Suffixes are case-sensitive.") from None


def _kept_as_text(name: str, check: Callable[[str], object] | None = None) -> Callable[[str], str]:
    """A type that validates like SGLang's (JSON etc.) but keeps the text, named as argparse reports it."""

    def convert(text: str) -> str:
        if check is not None:
            check(text)
        return text

    convert.__name__ = name
    return convert


def _json_list(text: str) -> object:
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError(text)
    return value


TYPES: dict[str | None, Callable[[str], Any] | None] = {
    None: None,
    "str": str,
    "int": int,
    "float": float,
    "human_readable_int": human_readable_int,
    "loads": _kept_as_text("loads", json.loads),
    "json_list_type": _kept_as_text("json_list_type", _json_list),
    "nullable_str": _kept_as_text("nullable_str"),
    "parse_cuda_graph_backend_arg": _kept_as_text("parse_cuda_graph_backend_arg"),
    "parse_cuda_graph_config_arg": _kept_as_text("parse_cuda_graph_config_arg", json.loads),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise FlagError(f"{self.prog}: error: {message}")


class _Help(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        raise FlagError(f"{option_string} makes the server print its help and exit without serving")


class _Flag(argparse.Action):
    """Options that take no value (store_true, deprecated no-value options): record True."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, True)


def _add(parser: argparse.ArgumentParser, spec: FlagSpec) -> None:
    common: dict[str, Any] = {"dest": spec.name, "default": argparse.SUPPRESS}
    if spec.flag_kind in ("store_true", "const"):
        parser.add_argument(*spec.option_strings, action=_Flag, **common)
    elif spec.flag_kind == "boolean_optional":
        parser.add_argument(spec.name, action=argparse.BooleanOptionalAction, **common)
    else:
        converter: Any = TYPES.get(spec.type, str)  # None: argparse keeps the text, as SGLang's type=None does
        parser.add_argument(*spec.option_strings, type=converter, nargs=spec.nargs,
                            choices=list(spec.choices) if spec.choices else None, **common)


@lru_cache(maxsize=None)
def build_parser(version: str) -> argparse.ArgumentParser:
    """A real argparse parser with SGLang's options for ``version`` (required checks are done separately)."""
    parser = _Parser(prog=PROG, add_help=False)
    parser.add_argument("-h", "--help", action=_Help)
    for spec in load_table(version).flags:
        _add(parser, spec)
    return parser


def parse_values(argv: list[str], version: str) -> dict[str, Any]:
    """The options ``argv`` sets, by primary name, typed; raises FlagError with argparse's message."""
    namespace = parse_in_parts(build_parser(version), list(argv))
    values = vars(namespace)
    for name, value in values.items():
        if value is None:  # nargs="?" given without a value
            values[name] = True
    return values


def missing_required(values: dict[str, Any], table: FlagTable) -> str | None:
    """argparse's message for required options that ``values`` lacks, or None."""
    missing = ["/".join(spec.option_strings) for spec in table.flags if spec.required and spec.name not in values]
    if not missing:
        return None
    return f"{PROG}: error: the following arguments are required: {', '.join(missing)}"


@dataclass(frozen=True)
class Match:
    """How argparse reads one ``--option`` word: the flag it means, or why it means none."""

    word: str
    spec: FlagSpec | None
    candidates: tuple[str, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.candidates) > 1


def match_option(word: str, table: FlagTable) -> Match:
    """Exact spelling, ``--opt=value``, or unique prefix (allow_abbrev), the way argparse matches options."""
    option = word.split("=", 1)[0] if "=" in word else word
    if word in table:
        return Match(word, table.get(word))
    if option in table:
        return Match(word, table.get(option))
    spellings = [s for spec in table.flags for s in _spellings(spec) if s.startswith(option)]
    if len(spellings) == 1:
        return Match(word, table.get(spellings[0]) or table.get(_positive(spellings[0])), tuple(spellings))
    return Match(word, None, tuple(spellings))


def _spellings(spec: FlagSpec) -> tuple[str, ...]:
    return spec.option_strings + ((spec.negative,) if spec.negative else ())


def _positive(spelling: str) -> str:
    return spelling if not spelling.startswith("--no-") else "--" + spelling[5:]
