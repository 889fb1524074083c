"""SGLang log parser: raw log text (any version 0.2.x–0.5.23, any prefix or wrapper) → typed events.

    from mtptui.sglang.logparse import LogParser, Event, parse_text
"""

from mtptui.sglang.logparse.events import FIELDS, KINDS, Event
from mtptui.sglang.logparse.quiet import QUIET_S, QuietRelease
from mtptui.sglang.logparse.stream import LogParser, parse_text

__all__ = ["Event", "FIELDS", "KINDS", "LogParser", "QUIET_S", "QuietRelease", "parse_text"]
