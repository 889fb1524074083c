"""Restart progress as plain events a UI can subscribe to, made from the log parser's events.

Steps (``RestartStep``): plan, backup, write_unit, reload, stopping, stopped, starting, loading, allocating,
capturing_graphs, warming_up, ready, crashed, failed (a step did not complete), aborted (stopped before any
change), timeout, lost (the log could not be followed), connection, unreachable, rolling_back, rolled_back,
rollback_failed, enabled, warning, done.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from mtptui.engines.registry import StartupState
from mtptui.remote.steps import RestartStep
from mtptui.engines.sglang.logparse import Event
from mtptui.engines.sglang.state import ServerState
from mtptui.engines.sglang.state import phases


@dataclass(frozen=True)
class RestartEvent:
    """One step of a restart: ``step`` (see the module doc), a sentence, which launch it concerns."""

    step: RestartStep
    message: str
    launch: str = "target"  # "target" (the new profile) or "rollback" (the previous launch)
    at_s: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "message": self.message, "launch": self.launch, "at_s": round(self.at_s, 2),
                "detail": self.detail}

    def __str__(self) -> str:
        return f"[{self.at_s:6.1f}s] {self.message}"


StepEmit = Callable[[RestartStep, str, dict[str, Any]], None]  # (step, message, detail): what a restart's parts report


class Clock:
    """Seconds since the restart began (for ``at_s``)."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def __call__(self) -> float:
        return time.monotonic() - self.start


def crash_reason(error: Event) -> str:
    """The sentence that explains a crash: the exception line at the end of a traceback, else the message."""
    traceback = error.fields.get("traceback") or ""
    lines = [line.strip() for line in traceback.splitlines() if line.strip() and not line.startswith("[")]
    return lines[-1] if lines else error.fields.get("message") or "unknown error"


def _weights_loaded(fields: dict[str, Any]) -> str:
    """``weights loaded (Qwen3ForCausalLM, 27.1 GB per GPU)``, with what the log said of the two."""
    said = [str(fields["model_type"])] if fields.get("model_type") else []
    said += [f"{fields['mem_usage_gb']} GB per GPU"] if fields.get("mem_usage_gb") is not None else []
    return f"weights loaded ({', '.join(said)})" if said else "weights loaded"


class StartupTracker:
    """Feeds parser events to a server state (SGLang's ServerState unless given the engine's own) and emits one
    RestartEvent per visible step."""

    def __init__(self, emit: StepEmit, state: StartupState | None = None) -> None:
        self.state: Any = state if state is not None else ServerState()
        self.emit = emit
        self.reason: str | None = None
        self._last_shards: tuple[object, object] | None = None
        self._phase: str | None = None
        self._models_loaded: set[object] = set()

    @property
    def settled(self) -> bool:
        return self.state.phase in phases.SETTLED

    def apply(self, event: Event) -> None:
        if self.settled:
            return
        self.state.apply(event)
        if event.kind == "error" and self.state.phase == phases.CRASHED and self.reason is None:
            self.reason = crash_reason(event)
            self.emit("crashed", f"crashed: {self.reason}", {"message": event.fields.get("message")})
        elif event.kind == "shard_progress":
            self._shards(event)
        elif event.kind == "weight_load_end" and event.fields.get("model_type") not in self._models_loaded:
            self._models_loaded.add(event.fields.get("model_type"))
            self.emit("loading", _weights_loaded(event.fields), dict(event.fields))
        elif self.state.phase != self._phase:
            self._phase_changed()

    def _shards(self, event: Event) -> None:
        key = (event.fields.get("done"), event.fields.get("total"))
        if key != self._last_shards:
            self._last_shards = key
            self.emit("loading", f"loading shards {key[0]}/{key[1]}", {"done": key[0], "total": key[1]})
        self._phase = self.state.phase

    def _phase_changed(self) -> None:
        self._phase = phase = self.state.phase
        messages: dict[str, tuple[RestartStep, str]] = {phases.LOADING_WEIGHTS: ("loading", "loading weights"),
                    phases.ALLOCATING_POOLS: ("allocating", "allocating memory pools"),
                    phases.CAPTURING_GRAPHS: ("capturing_graphs", "capturing CUDA graphs"),
                    phases.WARMING_UP: ("warming_up", "warming up"),
                    phases.READY: ("ready", "ready")}
        if phase in messages:
            self.emit(*messages[phase], {})

    def crash(self, reason: str) -> None:
        """The server died without a crash line in the log."""
        if not self.settled:
            self.state.phase = phases.CRASHED
            self.reason = reason
            self.emit("crashed", f"crashed: {reason}", {})
