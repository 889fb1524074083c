"""The line of an error an operator needs first: the exception, not ``Traceback (most recent call last):``."""

from __future__ import annotations

import re
from typing import Any

TRACEBACK_HEAD = "Traceback (most recent call last):"
# `ValueError: ...`, `torch.OutOfMemoryError: ...`, `Exception: Capture cuda graph failed: ...`
EXCEPTION_LINE = re.compile(r"(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b")


def headline(error: dict[str, Any]) -> str:
    """The exception line of an error event whose message only opens a traceback; else its message."""
    message = str(error.get("message") or "error")
    if not message.rstrip().endswith(TRACEBACK_HEAD):
        return message
    lines = [line.strip() for line in str(error.get("traceback") or "").splitlines() if line.strip()]
    for line in reversed(lines):
        if EXCEPTION_LINE.match(line):
            return line
    opener = message.rstrip()[:-len(TRACEBACK_HEAD)].rstrip(" :")
    return f"{opener or 'a traceback'} (its exception line is not in the log: cut off)"
