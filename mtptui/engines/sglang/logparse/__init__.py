"""SGLang log parser: raw log text (any version 0.2.x–0.5.23, any prefix or wrapper) → typed events.

    from mtptui.engines.sglang.logparse import LogParser, Event, parse_text
"""

from mtptui.engines.sglang.logparse.events import FIELDS, KINDS, Event
from mtptui.engines.sglang.logparse.quiet import QUIET_S, QuietRelease
from mtptui.engines.sglang.logparse.stream import LogParser, parse_text

__all__ = ["Event", "FIELDS", "KINDS", "LogParser", "QUIET_S", "QuietRelease", "parse_text"]
