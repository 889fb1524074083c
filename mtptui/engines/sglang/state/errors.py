"""The line of an error an operator needs first: the exception, not ``Traceback (most recent call last):``."""

from __future__ import annotations

import re
from typing import Any

TRACEBACK_HEAD = "Traceback (most recent call last):"
# `ValueError: ...`, `torch.OutOfMemoryError: ...`, `Exception: Capture cuda graph failed: ...`
FRAME = re.compile(r'File "([^"]*)", line (\d+), in (\S+)')
EXCEPTION_LINE = re.compile(r"(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b")


def headline(error: dict[str, Any]) -> str:
    """The root cause where the parser found one; the exception line of an error event whose message only opens
    a traceback; else its message."""
    if error.get("cause"):  # the root cause the engine's parser found (vLLM: the first exception of the chain)
        return str(error["cause"])
    message = str(error.get("message") or "error")
    if not message.rstrip().endswith(TRACEBACK_HEAD):
        return message
    lines = [line.strip() for line in str(error.get("traceback") or "").splitlines() if line.strip()]
    for line in reversed(lines):
        if EXCEPTION_LINE.match(line):
            return line
    opener = message.rstrip()[:-len(TRACEBACK_HEAD)].rstrip(" :")
    where = frame_brief(error.get("last_frame"))
    return f"{opener or 'a traceback'} (its exception line is not in the log: cut off{where})"


def frame_brief(frame: object) -> str:
    """``File ".../scheduler.py", line 1012, in loop`` → ``, last frame scheduler.py:1012 in loop`` ("" without)."""
    found = FRAME.match(frame) if isinstance(frame, str) else None
    if found is None:
        return ""
    return f", last frame {found.group(1).rsplit('/', 1)[-1]}:{found.group(2)} in {found.group(3)}"
