"""Prometheus durations (``30s``, ``1m``, ``1h30m``) as seconds, and back as PromQL writes them."""

from __future__ import annotations

import re

from mtptui.errors import UserError

_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PART = re.compile(r"(\d+)(ms|s|m|h|d|w)")


def parse_duration(text: str, what: str) -> float:
    """Seconds of a Prometheus duration; a UserError naming ``what`` for anything else."""
    text = str(text).strip()
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise UserError(f"{what} {text!r} is not a duration like 30s, 1m or 1h")
    seconds = sum(int(number) * _UNITS[unit] for number, unit in parts)
    if seconds <= 0:
        raise UserError(f"{what} {text!r} must be longer than zero")
    return seconds


def promql_duration(seconds: float) -> str:
    """``90s`` for 90 seconds, ``1500ms`` for 1.5 (PromQL wants whole numbers of a unit)."""
    if float(seconds).is_integer():
        return f"{int(seconds)}s"
    return f"{round(seconds * 1000)}ms"


def short_duration(seconds: float) -> str:
    """``1m``, ``1h``, ``90s``: for titles."""
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return promql_duration(seconds)
