"""What the dashboard knows, kept outside any widget: server state, host status, connection, plot series.

Handlers of the dashboard own one Session and feed it parsed events; panes read it when they repaint. No
Textual here, so the later ops screens (restart, bench) can read the same session.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable

from mtptui.ops.feed import Connection, HostStatus
from mtptui.sglang.logparse import Event
from mtptui.sglang.logparse.timestamps import parse_ts
from mtptui.sglang.state import ServerState, phases
from mtptui.ui.gpu_history import GpuHistory
from mtptui.sglang.state.serving import ServingStats

Clock = Callable[[], float]
# Service states (systemd's is-active, the process manager's, a launcher's `exited (status N)`) in which no
# server runs.
DOWN_STATES = ("inactive", "failed", "deactivating", "not running", "exited", "not started")


@dataclass
class Changes:
    """Which panes a batch of events touched."""

    startup: bool = False
    decode: bool = False
    phase_from: str | None = None
    errors: tuple[dict, ...] = ()
    warnings: int = 0


class ThroughputSeries:
    """Server gen tok/s against seconds since the first timestamp; warm-up and idle batches kept apart."""

    def __init__(self, maxlen: int = 600) -> None:
        self.steady: deque[tuple[float, float]] = deque(maxlen=maxlen)
        self.warm_up: deque[tuple[float, float]] = deque(maxlen=32)
        self.t0: float | None = None
        self.restarts: list[float] = []  # seconds at which a new startup began after decode batches
        self._last_ts: tuple[str | None, float | None] = (None, None)

    def seconds(self, ts: str | None) -> float | None:
        if ts != self._last_ts[0]:
            self._last_ts = (ts, parse_ts(ts))
        value = self._last_ts[1]
        if value is None:
            return None
        if self.t0 is None:
            self.t0 = value
        return value - self.t0

    def add(self, ts: str | None, value: float | None, warm_up: bool, running: int | None) -> None:
        t = self.seconds(ts)
        if t is None or value is None:
            return
        if warm_up:
            self.warm_up.append((t, value))
        elif running:
            self.steady.append((t, value))


class Session:
    """Everything the panes show; ``apply`` takes parsed events and says what changed."""

    def __init__(self, clock: Clock = time.time, spark_len: int = 120) -> None:
        self.clock = clock
        self.server = ServerState()
        self.host: HostStatus | None = None
        self.connection = Connection("connecting")
        self.throughput = ThroughputSeries()
        self.accept_len: deque[float] = deque(maxlen=spark_len)
        self.accept_rate: deque[float] = deque(maxlen=spark_len)
        self.serving = ServingStats()  # load, queue, pools and the samples the health line judges
        self.lines_seen = 0
        self.gpus = GpuHistory()  # live nvidia-smi figures (mtptui.ops.gpu_poll)
        self.error_held = False  # the feed holds an error back until its traceback ends (or the log goes quiet)
        self.previous_mean: float | None = None  # steady mean of the run before the last restart

    def apply(self, events: Iterable[Event]) -> Changes:
        changes = Changes(phase_from=self.server.phase)
        errors = []
        for event in events:
            startups, mean = self.server.startups, self.steady_mean
            self.server.apply(event)
            if self.server.startups != startups:
                self.serving.new_startup()  # the judged samples are the new launch's from its first line on
            if self.server.startups != startups and mean is not None:
                self._restarted(event.ts, mean)
            if self.throughput.t0 is None:
                self.throughput.seconds(event.ts)
            kind = event.kind
            if kind == "decode":
                self._decode(event)
                changes.decode = True
            elif kind == "error":
                errors.append(self.server.last_error or {})
            elif kind == "warning":
                changes.warnings += 1
            if kind in ("prefill", "http_access", "warning"):
                self.serving.apply(event, self.throughput.seconds(event.ts))
            elif kind not in ("prefill", "http_access"):
                changes.startup = True
        changes.errors = tuple(errors)
        return changes

    def _decode(self, event: Event) -> None:
        warm_up = self.server.decode.last_was_warm_up  # the state's rule: the first batch of each startup
        fields = event.fields
        self.serving.decode(fields, self.throughput.seconds(event.ts), warm_up)
        self.throughput.add(event.ts, fields["gen_throughput"], warm_up, fields["running_req"])
        if not warm_up and fields["running_req"]:
            if fields["accept_len"] is not None:
                self.accept_len.append(fields["accept_len"])
            if fields["accept_rate"] is not None:
                self.accept_rate.append(fields["accept_rate"])

    def _restarted(self, ts: str | None, mean: float) -> None:
        """A new startup after decode batches: mark it on the plot and keep the run before's steady mean."""
        self.previous_mean = mean
        self.accept_len.clear()  # acceptance of another launch: its mean is not this run's
        self.accept_rate.clear()
        at = self.throughput.seconds(ts)
        if at is not None:
            self.throughput.restarts.append(at)

    def server_down(self) -> str | None:
        """"crashed" or "stopped" when the host says no server runs (whatever the log showed last), else None."""
        state = self.host.service_state if self.host else ""
        if not state.startswith(DOWN_STATES):
            return None
        failed = state.startswith("failed") or self.server.phase == phases.CRASHED or \
            state.startswith("exited (status") and not state.startswith("exited (status 0)")
        return "crashed" if failed else "stopped"

    def uptime_s(self) -> float | None:
        """Seconds since the server started, from the host status; None when unknown."""
        started = self.host.started_at if self.host else None
        if started is None or self.server_down() is not None:
            return None
        return max(self.clock() - started, 0.0)

    @property
    def steady_mean(self) -> float | None:
        """Mean gen tok/s of this startup, warm-up excluded (the line drawn on the plot)."""
        return self.server.decode.steady_gen_throughput_this_startup
