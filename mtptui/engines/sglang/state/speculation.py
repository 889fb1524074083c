"""Speculation as the log tells it: what the launch resolved to, what runs now, and the adaptive switches.

A ``server_args=`` line is a new launch: it resets what the run before switched. SGLang logs its warnings before
that line, so a ``speculative_adaptive disabled`` line belongs to the launch whose line follows it.
``summary()`` is the ``speculation`` object of ``parse-log --summary``; ``value()`` the engine-neutral
``mtptui.speculation.LiveSpeculation`` the dashboard reads.
"""

from __future__ import annotations

from typing import Any

from mtptui.engines.sglang.logparse import Event
from mtptui.speculation import LiveSpeculation, SpecShape

KINDS = frozenset({"server_args", "spec_adaptive", "spec_switch"})


class SpeculationState:
    """Feed it the three speculation kinds; read ``value()`` or ``summary()``."""

    def __init__(self) -> None:
        self.configured: SpecShape | None = None
        self.candidates: tuple[int, ...] | None = None
        self.live: SpecShape | None = None
        self.switches = 0
        self.turned_off: str | None = None
        self._pending_off: str | None = None  # a disabled line seen before its launch's server_args line
        self.launch_seen = False  # a launch line was read (with no algorithm: the server runs no speculation)

    def apply(self, event: Event) -> None:
        fields = event.fields
        if event.kind == "server_args":
            self._launch(fields)
        elif event.kind == "spec_adaptive" and fields["disabled"] is not None:
            self._pending_off = self.turned_off = fields["disabled"]
            self.candidates = None
        elif event.kind == "spec_adaptive":
            self.candidates = tuple(fields["candidates"] or ())
            self.live = SpecShape(self._algorithm, fields["steps"], self._topk, fields["steps"] + 1)
        elif event.kind == "spec_switch":
            self.switches += 1
            self.live = SpecShape(self._algorithm, fields["to_steps"], self._topk, fields["to_draft_tokens"])

    def _launch(self, fields: dict[str, Any]) -> None:
        algorithm = fields["algorithm"]
        self.launch_seen = True
        self.configured = SpecShape(algorithm, fields["steps"], fields["topk"], fields["draft_tokens"]) \
            if algorithm is not None else None
        self.turned_off, self._pending_off = self._pending_off, None
        self.candidates = () if fields["adaptive"] and algorithm is not None else None
        self.live, self.switches = None, 0

    @property
    def _algorithm(self) -> str | None:
        return self.configured.algorithm if self.configured else None

    @property
    def _topk(self) -> int | None:
        return self.configured.topk if self.configured else None

    def value(self) -> LiveSpeculation | None:
        """Configured vs live; None before the log showed a launch or an adaptive line."""
        if self.configured is None and self.live is None and self.turned_off is None:
            return None
        return LiveSpeculation(self.configured, self.live or self.configured, self.candidates, self.switches,
                               self.turned_off, "log")

    def summary(self) -> dict[str, Any]:
        """``configured`` (from server_args=), ``live`` (after the last switch), ``adaptive``, ``switches``."""
        live = self.live or self.configured
        return {
            "configured": _shape(self.configured),
            "live": {"steps": live.steps, "draft_tokens": live.draft_tokens} if live else None,
            "adaptive": {"candidates": list(self.candidates) if self.candidates else None}
            if self.candidates is not None else None,
            "switches": self.switches,
        }


def _shape(shape: SpecShape | None) -> dict[str, Any] | None:
    if shape is None:
        return None
    return {"algorithm": shape.algorithm, "steps": shape.steps, "topk": shape.topk, "draft_tokens": shape.draft_tokens}
