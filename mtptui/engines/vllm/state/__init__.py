"""The state of a vLLM server, reduced from its log events (the dashboard's panes and `parse-log --summary`)."""

from typing import BinaryIO

from mtptui.engines.vllm.logparse import LogParser, VllmEvent
from mtptui.engines.sglang.logparse.events import Event
from mtptui.engines.vllm.state.model import VllmState
from mtptui.engines.vllm.state.summary import state_to_dict

__all__ = ["VllmState", "state_to_dict", "summarize_stream"]


def summarize_stream(stream: BinaryIO, state: VllmState, block: int = 1 << 20) -> VllmState:
    """Feed a whole binary stream through the parser into ``state``."""
    parser = LogParser()
    read = getattr(stream, "read1", stream.read)
    while data := read(block):
        _apply(state, parser.feed(data))
    _apply(state, parser.close())
    return state


def _apply(state: VllmState, events: list[Event]) -> None:
    for event in events:
        if isinstance(event, VllmEvent):  # always, from the vLLM parser; the check narrows the type
            state.apply(event)
