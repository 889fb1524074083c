"""The tune grid: ``steps=1,2,3,4 topk=1 draft=auto`` turned into arms, one per combination.

Keys are ``steps``, ``topk`` and ``draft`` (the speculative flags) or any SGLang flag by its profile name (long
name without ``--``). ``auto`` leaves a flag to SGLang (draft tokens: steps + 1 at topk 1).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Union

from mtptui.errors import UserError

ALIASES = {"steps": "speculative-num-steps", "topk": "speculative-eagle-topk", "draft": "speculative-num-draft-tokens"}
SHORT = {flag: alias for alias, flag in ALIASES.items()}
DEFAULT_GRID = ("steps=1,2,3,4", "topk=1", "draft=auto")
AUTO = "auto"
MAX_ARMS = 64

GridValue = Union[int, float, str]  # a number, a word, or AUTO


@dataclass(frozen=True)
class GridPoint:
    """One combination: flag (profile name) → value, ``AUTO`` for a flag left to SGLang."""

    values: tuple[tuple[str, GridValue], ...]


def _value(flag: str, word: str) -> GridValue:
    if word == AUTO:
        return AUTO
    try:
        return int(word)
    except ValueError:
        pass
    try:
        return float(word)
    except ValueError:
        return word


def parse_dimension(spec: str, aliases: dict[str, str] = ALIASES) -> tuple[str, list[GridValue]]:
    """``steps=1,2,3`` → ("speculative-num-steps", [1, 2, 3]) (``aliases``: the short keys, SGLang's by default;
    an engine's own grid keeps its keys); a UserError for anything else."""
    key, sep, values = spec.partition("=")
    key = key.strip().lower().removeprefix("--")
    words = [word.strip() for word in values.split(",") if word.strip()]
    if not sep or not key or not words:
        raise UserError(f"--grid takes NAME=V1,V2,... (e.g. steps=1,2,3), not {spec!r}")
    flag = aliases.get(key, key)
    if not all(c.isalnum() or c == "-" for c in flag):
        raise UserError(f"--grid: {key!r} is not a flag name (steps, topk, draft or an SGLang flag without --)")
    return flag, [_value(flag, word) for word in dict.fromkeys(words)]


def parse_grid(specs: list[str] | tuple[str, ...] | None, aliases: dict[str, str] = ALIASES) -> list[GridPoint]:
    """Every combination of the dimensions, in the order written (the first dimension varies slowest)."""
    dims: dict[str, list[GridValue]] = {}
    for spec in specs or DEFAULT_GRID:
        flag, values = parse_dimension(spec, aliases)
        if flag in dims:
            raise UserError(f"--grid names {SHORT.get(flag, flag)} twice")
        dims[flag] = values
    points = [GridPoint(tuple(zip(dims, combo))) for combo in itertools.product(*dims.values())]
    if len(points) > MAX_ARMS:
        raise UserError(f"--grid makes {len(points)} arms; at most {MAX_ARMS} (each one is a restart)")
    return points


def parse_concurrency(text: str | None) -> list[int]:
    """``1,4,16`` → [1, 4, 16] (sorted, distinct, each >= 1)."""
    words = [w.strip() for w in (text or "1,4,16").split(",") if w.strip()]
    if not words or not all(w.isdigit() and 1 <= int(w) <= 1024 for w in words):
        raise UserError(f"--concurrency takes numbers from 1 to 1024 separated by commas, not {text!r}")
    return sorted({int(w) for w in words})
