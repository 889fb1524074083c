"""How serious a log line is (the log view colours and filters by it): the parser's events first, then words."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mtptui.engines.sglang.logparse.events import Event

INFO, WARNING, ERROR = 0, 1, 2
ERROR_WORDS = re.compile(r"Traceback \(most recent|\bERROR\b|\bCRITICAL\b|Error: |error: |Exception\b|hit an exception")
WARNING_WORDS = re.compile(r"\bWARNING\b|Warning: |\bwarn(?:ing)?\b")


def line_level(text: str, new_events: list[Event], in_error: bool) -> int:
    """ERROR for an error line or its traceback, WARNING for warnings, else INFO."""
    if in_error or any(e.kind == "error" for e in new_events):
        return ERROR
    if any(e.kind == "warning" for e in new_events):
        return WARNING
    if new_events:  # a line the parser understood (batch, access, startup) is what it says it is
        return INFO
    if ERROR_WORDS.search(text):
        return ERROR
    return WARNING if WARNING_WORDS.search(text) else INFO
