"""The value types of vLLM's options, by the names the flag table gives them, with vLLM's error texts.

argparse names a failing converter in its message (`invalid human_readable_int value: 'x'`), so each one here
carries the name of vLLM's own helper; a converter that raises ArgumentTypeError speaks for itself, as vLLM's
do (`Value {bad cannot be converted to <function loads>.`: vLLM prints the function's address too).
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any, Callable

Converter = Callable[[str], Any]
DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
SUFFIXED = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
JSON_OBJECT = re.compile(r"(?s)^\s*{.*}\s*$")


def human_readable_int(value: str) -> int:
    value = value.strip()
    found = SUFFIXED.fullmatch(value)
    if found:
        number, suffix = found.groups()
        if suffix in DECIMAL:
            return int(float(number) * DECIMAL[suffix])
        try:
            return int(number) * BINARY[suffix]
        except ValueError:
            raise argparse.ArgumentTypeError(f"Decimals are not allowed with binary suffixes like {suffix}. Did you "
                                             f"mean to use {number}{suffix.lower()} instead?") from None
    return int(value)


def human_readable_int_or_auto(value: str) -> int:
    value = value.strip()
    if value == "-1" or value.lower() == "auto":
        return -1
    return human_readable_int(value)


def _shown(kind: Converter) -> str:
    """How vLLM's message names a type: `<class 'int'>`, `<function loads>` (without its address)."""
    if isinstance(kind, type):
        return repr(kind)
    return f"<function {getattr(kind, '__name__', 'converter')}>"


def parse_type(kind: Converter) -> Converter:
    def _parse_type(value: str) -> Any:
        try:
            return kind(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"Value {value} cannot be converted to {_shown(kind)}.") from None

    return _parse_type


def optional_type(kind: Converter) -> Converter:
    def _optional_type(value: str) -> Any:
        if value in ("", "None"):
            return None
        return parse_type(kind)(value)

    return _optional_type


def union_dict_and_str(value: str) -> Any:
    if not JSON_OBJECT.match(value):
        return str(value)
    return optional_type(json.loads)(value)


def _lowered(value: str) -> str:
    return value.lower().replace("-", "_")


def _id_list(value: str) -> list[int | str]:
    return [int(part) if part.isdigit() else part for part in (piece.strip() for piece in value.split(","))]


_lowered.__name__ = _id_list.__name__ = "<lambda>"  # argparse names them so in its messages, as vLLM's own


def _dataclass_json(value: str) -> Any:
    """A config given as JSON: its content is vLLM's to judge (mtptui checks only that it is JSON)."""
    try:
        return json.loads(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not valid JSON") from None


NAMED: dict[str, Converter] = {"int": int, "float": float, "str": str, "json": json.loads,
                               "human_readable_int": human_readable_int,
                               "human_readable_int_or_auto": human_readable_int_or_auto,
                               "union_dict_and_str": union_dict_and_str}


def _base(name: str) -> Converter:
    if name.startswith("dataclass:"):
        return _dataclass_json
    if name.startswith("lambda:"):
        return _id_list if name == "lambda:device_ids" else _lowered
    return NAMED.get(name, str)


def converter(name: str | None) -> Converter | None:
    """The converter a flag table names (None: the option takes no converter)."""
    if name is None:
        return None
    if name.startswith("optional:"):
        return optional_type(_base(name.removeprefix("optional:")))
    if name == "json":
        return parse_type(json.loads)
    return _base(name)
