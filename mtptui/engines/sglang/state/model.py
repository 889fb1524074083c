"""The dashboard state: a reducer over `parse-log` events.

History (decode series and means, request counts, warnings, the last error) lives for the whole stream;
the startup part (phase progress, shards, memory per rank, capacity, ready time) is replaced when a new
startup sequence begins after the server was ready or had crashed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from mtptui.engines.sglang.logparse import Event
from mtptui.engines.sglang.state import phases
from mtptui.engines.sglang.state.decode import DecodeHistory, Sample
from mtptui.engines.sglang.state.memory import MemoryTable
from mtptui.engines.sglang.state.requests import RequestTotals
from mtptui.engines.sglang.state.speculation import SpeculationState


@dataclass
class Startup:
    """What one startup sequence showed: replaced as a whole on restart."""

    started_at: str | None = None
    ready_at: str | None = None
    shards: dict[str, Any] | None = None
    graph_capture: dict[str, Any] | None = None
    capacity: dict[str, Any] | None = None
    memory: MemoryTable = field(default_factory=MemoryTable)
    errors: int = 0  # this server run's problems (the stream's totals are on ServerState)
    stopping: bool = False  # this run was told to stop (SIGTERM): its last words are no crash
    warnings: int = 0
    last_error: dict[str, Any] | None = None
    cause: dict[str, Any] | None = None  # the last error with a traceback: why the run failed, not its echo
    last_warning: str | None = None


class ServerState:
    """Feed events with `apply`/`apply_all`; read attributes, or `state_to_dict` (summary.py) for
    `parse-log --summary`."""

    def __init__(self, history: int = 2000, *, own_start_only: bool = False) -> None:
        # own_start_only: the log is watched from just before a (re)start, so until a startup opens, its batches are
        # the previous server's (it serves until the SIGTERM): not this one serving
        self.own_start_only = own_start_only
        self.phase = phases.STARTING
        self.startups = 0
        self.startup = Startup()
        self.decode = DecodeHistory(history)
        self.http_status: dict[int, int] = {}
        self.prefill_count = 0
        self.warning_count = 0
        self.last_warning: str | None = None
        self.last_error: dict[str, Any] | None = None
        self.requests = RequestTotals()
        self.speculation = SpeculationState()
        self._handlers = {"decode": self._on_decode, "prefill": self._on_prefill, "http_access": self._on_http,
                          "server_ready": self._on_ready, "error": self._on_error, "warning": self._on_warning,
                          "request_finish": self.requests.add, "server_args": self.speculation.apply,
                          "spec_adaptive": self.speculation.apply, "spec_switch": self.speculation.apply}

    def apply(self, event: Event) -> None:
        stage = phases.STAGE_OF_KIND.get(event.kind)
        if stage is not None:
            self._on_startup_line(event, stage)
        else:
            handler = self._handlers.get(event.kind)
            if handler is not None:
                handler(event)

    def apply_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.apply(event)

    def _on_startup_line(self, event: Event, stage: str) -> None:
        if self.phase in phases.SETTLED and event.kind in phases.NEW_STARTUP_KINDS or self.phase == phases.STARTING:
            self._begin_startup(event.ts)
        if self.phase not in phases.SETTLED:
            self.phase = stage
        if event.kind == "shard_progress":
            self.startup.shards = dict(event.fields)
        elif event.kind == "graph_capture_progress":
            self.startup.graph_capture = dict(event.fields)
        elif event.kind == "capacity":
            self.startup.capacity = dict(event.fields)
        self.startup.memory.apply(event)

    def _begin_startup(self, ts: str | None) -> None:
        self.startup = Startup()  # before the first one it held only problems of a run the log began inside
        if self.startups:
            self.decode.new_startup()
        self.startup.started_at = ts
        self.startups += 1
        self.phase = phases.LOADING_WEIGHTS

    def batch_seen(self) -> None:
        """A prefill/decode batch: the server is warming up, or was already serving when the log began."""
        if self.phase == phases.STARTING:
            if not self.own_start_only:
                self.phase = phases.READY
        elif self.phase not in phases.SETTLED:
            self.phase = phases.WARMING_UP

    def _on_decode(self, event: Event) -> None:
        self.batch_seen()
        self.decode.add(event.ts, event.fields)

    def _on_prefill(self, event: Event) -> None:
        self.batch_seen()
        self.prefill_count += 1

    def _on_http(self, event: Event) -> None:
        status = event.fields["status"]
        self.http_status[status] = self.http_status.get(status, 0) + 1

    def _on_ready(self, event: Event) -> None:
        self.phase = phases.READY
        self.startup.ready_at = event.ts

    def _on_error(self, event: Event) -> None:
        message = event.fields["message"]
        self.last_error = {"message": message, "traceback": event.fields["traceback"], "ts": event.ts,
                           "ranks": event.ranks}
        self.startup.errors += 1
        self.startup.last_error = self.last_error
        if event.fields["traceback"]:
            self.startup.cause = self.last_error
        fatal = event.fields.get("fatal")  # an engine that tells (vLLM's dashboard events), else SGLang's rule
        if fatal if fatal is not None else phases.is_fatal(message, self.startup.stopping):
            self.phase = phases.CRASHED
        self.last_error.update(last_frame=event.fields.get("last_frame"), truncated=bool(event.fields.get("truncated")))
        if event.fields.get("cause"):  # the root-cause line an engine's parser found (vLLM's)
            self.last_error["cause"] = event.fields["cause"]

    def _on_warning(self, event: Event) -> None:
        self.warning_count += 1
        self.last_warning = event.fields["message"]
        self.startup.warnings += 1
        self.startup.last_warning = self.last_warning
        self.startup.stopping = self.startup.stopping or self.last_warning.startswith(phases.STOP_WARNING)

    # Read side ---------------------------------------------------------------------------------------------

    @property
    def ready_at(self) -> str | None:
        return self.startup.ready_at

    @property
    def shards(self) -> dict[str, Any] | None:
        return self.startup.shards

    @property
    def memory(self) -> MemoryTable:
        return self.startup.memory

    @property
    def capacity(self) -> dict[str, Any] | None:
        return self.startup.capacity

    @property
    def series(self) -> list[Sample]:
        return list(self.decode.series)

    @property
    def decode_count(self) -> int:
        return self.decode.count

    @property
    def steady_gen_throughput(self) -> float | None:
        return self.decode.steady_gen_throughput

    @property
    def last_accept_len(self) -> float | None:
        last = self.decode.last
        return last.get("accept_len") if last else None

    @property
    def last_accept_rate(self) -> float | None:
        last = self.decode.last
        return last.get("accept_rate") if last else None
