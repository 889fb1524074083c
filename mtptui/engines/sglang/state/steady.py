"""Which decode lines measure decoding: SGLang's ``gen throughput`` is the tokens since the previous decode line
over the wall time since it, idle time included. A line written after the server was idle (a prefill that found
no running request: ``#running-req: 0``) covers that idle time and the new request's prefill, so it reads low
(at one request after another, every request's first line). Those lines say how busy the server was, not how
fast a request decodes; the health line's live figure and the bench's log figure both leave them out, the same
way, so the two are the same measure (the warm-up batch after a startup is left out apart:
``mtptui.engines.sglang.state.decode``).
"""

from __future__ import annotations

from typing import Any


class SteadyLines:
    """Fed the prefill and decode lines in order; ``decode`` says whether that line measured decoding."""

    def __init__(self) -> None:
        self._after_idle = True  # nothing seen yet: the first line covers whatever came before

    def prefill(self, fields: dict[str, Any]) -> None:
        if fields.get("running_req") == 0:
            self._after_idle = True

    def decode(self, fields: dict[str, Any]) -> bool:
        """True when the line's interval held only decoding (of ``#running-req`` requests)."""
        steady = not self._after_idle and bool(fields.get("running_req"))
        self._after_idle = not fields.get("running_req")
        return steady


def per_request(fields: dict[str, Any]) -> float | None:
    """The line's gen throughput per running request (the speed one request decoded at), None without one."""
    running, throughput = fields.get("running_req"), fields.get("gen_throughput")
    return throughput / running if running and throughput is not None else None
