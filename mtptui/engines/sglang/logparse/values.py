"""Safe converters for values read from log text: bad text gives None, never an exception or NaN."""

from __future__ import annotations

import math


def to_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def to_float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def to_bool(text: str) -> bool | None:
    text = text.strip()
    return True if text == "True" else False if text == "False" else None


def first_word(text: str) -> str:
    """`28.41 s` → `28.41`, `3.43 GB.` → `3.43`: the number before its unit."""
    return text.split(None, 1)[0].rstrip(".,") if text.strip() else ""


def gb(text: str) -> float | None:
    """A size printed as `3.43 GB`, `0.28GB` or `3.43`."""
    return to_float(first_word(text).removesuffix("GB"))
