"""vLLM log parser: raw log text (any prefix form, colour or not) → the events of `parse-log`.

    from mtptui.engines.vllm.logparse import LogParser, parse_text
"""

from mtptui.engines.vllm.logparse.events import FIELDS, KINDS, NEW_KINDS, VllmEvent
from mtptui.engines.vllm.logparse.stream import LogParser, parse_text

__all__ = ["FIELDS", "KINDS", "LogParser", "NEW_KINDS", "VllmEvent", "parse_text"]
