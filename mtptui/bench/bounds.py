"""Caps on what a server's answers may put in a run's record, and so in the history and --json files.

A server is not trusted to be sane: a 300 MB model id once went into every history record and slowed every
later run that read the history. Text is clipped with its length said; values that are not plain are named.
"""

from __future__ import annotations

from typing import Any

ID_CHARS = 1024  # a model id or path longer than this is not a name
SHOWN_ID_CHARS = 64
TEXT_CHARS = 1024  # a launch flag's value, the server version
COMMAND_CHARS = 16 << 10  # the server's launch command
LIST_ITEMS = 64
_SCALARS = (bool, int, float, str)


def clip(text: str, keep: int) -> str:
    """``text`` itself, or its first ``keep`` characters followed by its length."""
    return text if len(text) <= keep else f"{text[:keep]} … ({len(text):,} characters)"


def text_or_none(value: Any, keep: int = TEXT_CHARS) -> str | None:
    """A string field as stored: clipped, or None when the server sent something else."""
    return clip(value, keep) if isinstance(value, str) else None


def bounded_value(value: Any) -> Any:
    """A launch flag's value as stored: a scalar (text clipped) or a short flat list of them, else its kind."""
    if value is None or isinstance(value, _SCALARS):
        return clip(value, TEXT_CHARS) if isinstance(value, str) else value
    if isinstance(value, list) and len(value) <= LIST_ITEMS and all(v is None or isinstance(v, _SCALARS)
                                                                    for v in value):
        return [bounded_value(v) for v in value]
    return "(a list)" if isinstance(value, list) else "(an object)" if isinstance(value, dict) else "(unreadable)"


def model_name(*candidates: Any) -> tuple[str | None, str | None]:
    """(the first candidate that is a non-empty string, a notice) with an over-long id clipped and said."""
    for name in candidates:
        if isinstance(name, str) and name:
            if len(name) <= ID_CHARS:
                return name, None
            return clip(name, SHOWN_ID_CHARS), (
                f"the server's model id is {len(name):,} characters long: recorded as its first {SHOWN_ID_CHARS} "
                f"and not sent (requests name the model 'default')")
    return None, None
