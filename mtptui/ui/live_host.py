"""What the dashboard knows, kept outside any widget: server state, host status, connection, plot series.

Handlers of the dashboard own one LiveHost and feed it parsed events; panes read it when they repaint. No
Textual here, so the ops screens (restart, bench) can read the same LiveHost.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from mtptui.engines.registry import Dashboard, dashboard
from mtptui.ops.feed.items import Connection, GatewayReading, HostStatus
from mtptui.ops.server_up import ServerUp, server_up
from mtptui.ops.speculation_view import current
from mtptui.engines.sglang.logparse import Event
from mtptui.engines.sglang.logparse.timestamps import parse_ts
from mtptui.engines.sglang.state import ServerState
from mtptui.engines.sglang.state.decode import decoded
from mtptui.engines.sglang.state.serving import ServingStats
from mtptui.speculation import LiveSpeculation
from mtptui.ui.gpu_history import GpuHistory

Clock = Callable[[], float]


@dataclass
class Changes:
    """Which panes a batch of events touched."""

    startup: bool = False
    decode: bool = False
    speculation: bool = False  # a launch line or an adaptive start or switch
    phase_from: str | None = None
    errors: tuple[dict[str, Any], ...] = ()
    warnings: int = 0


class ThroughputSeries:
    """Server gen tok/s against seconds since the first timestamp; warm-up and idle batches kept apart."""

    def __init__(self, maxlen: int = 600) -> None:
        self.steady: deque[tuple[float, float]] = deque(maxlen=maxlen)
        self.warm_up: deque[tuple[float, float]] = deque(maxlen=32)
        self.t0: float | None = None
        self.restarts: list[float] = []  # seconds at which a new startup began after decode batches
        self.switches: deque[tuple[float, int, int]] = deque(maxlen=256)  # (seconds, from steps, to steps)
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

    def add(self, ts: str | None, value: float | None, warm_up: bool, running: int | bool | None) -> None:
        t = self.seconds(ts)
        if t is None or value is None:
            return
        if warm_up:
            self.warm_up.append((t, value))
        elif running:
            self.steady.append((t, value))


class LiveHost:
    """One host as the dashboard knows it now: everything the panes show; ``apply`` takes parsed events and says
    what changed."""

    def __init__(self, clock: Clock = time.time, spark_len: int = 120, engine: Dashboard | None = None) -> None:
        self.clock = clock
        self.engine = engine or dashboard(None)  # the host's engine: its log parser and its name
        self.log_version: str | None = None  # the version the server's log names (its banner), if it does
        self.server = ServerState()
        self.host: HostStatus | None = None
        self.connection = Connection("connecting")
        self.throughput = ThroughputSeries()
        self.accept_len: deque[float] = deque(maxlen=spark_len)
        self.accept_rate: deque[float] = deque(maxlen=spark_len)
        self.live_steps: deque[float] = deque(maxlen=spark_len)  # the draft steps running at each decode batch
        self.per_position: list[float | None] | None = None  # acceptance per draft position, where the log has it
        self._launch_spec: tuple[object, LiveSpeculation | None] = (None, None)
        self.serving = ServingStats()  # load, queue, pools and the samples the health line judges
        self.lines_seen = 0
        self.gpus = GpuHistory()  # live nvidia-smi figures (mtptui.ops.gpu_poll)
        self.gateway: GatewayReading | None = None  # the gateway's last word (mtptui.ops.gateway_poll)
        self.error_held = False  # the feed holds an error back until its traceback ends (or the log goes quiet)
        self.previous_mean: float | None = None  # steady mean of the run before the last restart
        self.awaiting_new = False  # a restart stopped the old process: no figure until the new one's log starts
        self.last_byte_at: float | None = None  # clock() of the last log line or GPU reading from the host
        self.now_cleared = False  # the "now" figures were cleared (a restart) and none came since

    def new_process(self) -> None:
        """A restart began: every "now" figure is cleared, and lines of the old process (it may still log while
        it stops) give none until the log shows the new one's startup (or ``awaiting_new`` is dropped)."""
        self.serving.clear_now()
        self.accept_len.clear()
        self.accept_rate.clear()
        self.per_position = None
        self.awaiting_new = self.now_cleared = True

    @property
    def version(self) -> str | None:
        """The server's version: the host's word for it (its API or configuration), else its log's."""
        return (self.host.version if self.host else None) or self.log_version

    @property
    def gen_now(self) -> float | None:
        """The latest steady gen tok/s, unless a restart cleared it and the new process has decoded nothing."""
        steady = self.throughput.steady
        return steady[-1][1] if steady and not self.now_cleared else None

    def reset_log(self) -> None:
        """The log is read again from another place: what was parsed from it so far is not the log any more."""
        self.server = ServerState()
        self.throughput = ThroughputSeries()
        self.serving = ServingStats()
        self.accept_len.clear()
        self.accept_rate.clear()
        self.per_position = None
        self.lines_seen = 0
        self.error_held = False
        self.previous_mean = None

    def apply(self, events: Iterable[Event]) -> Changes:
        changes = Changes(phase_from=self.server.phase)
        errors = []
        for event in events:
            startups, mean = self.server.startups, self.steady_mean
            self.server.apply(event)
            if self.server.startups != startups:
                self.serving.new_startup()  # the judged samples are the new launch's from its first line on
                self.awaiting_new = False
            if self.server.startups != startups and mean is not None:
                self._restarted(event.ts, mean)
            if self.throughput.t0 is None:
                self.throughput.seconds(event.ts)
            kind = event.kind
            if self.awaiting_new and kind in ("decode", "prefill"):
                continue  # the old process, still stopping: its figures are not the new one's
            if kind == "decode":
                self._decode(event)
                changes.decode = True
            elif kind == "error":
                errors.append(self.server.last_error or {})
            elif kind in ("server_args", "spec_adaptive", "spec_switch"):
                changes.speculation = True
                self._switched(event)
            elif kind == "warning":
                changes.warnings += 1
            elif kind == "server_version" and event.fields["version"]:
                self.log_version = event.fields["version"]
            if kind in ("prefill", "http_access", "warning"):
                self.serving.apply(event, self.throughput.seconds(event.ts))
            elif kind not in ("prefill", "http_access"):
                changes.startup = True
        changes.errors = tuple(errors)
        return changes

    def _decode(self, event: Event) -> None:
        self.now_cleared = False
        warm_up = self.server.decode.last_was_warm_up  # the state's rule: the first batch of each startup
        fields = event.fields
        self.serving.decode(fields, self.throughput.seconds(event.ts), warm_up)
        busy = decoded(fields)
        self.throughput.add(event.ts, fields["gen_throughput"], warm_up, busy)
        if not warm_up and busy:
            if fields["accept_len"] is not None:
                self.accept_len.append(fields["accept_len"])
            if fields["accept_rate"] is not None:
                self.accept_rate.append(fields["accept_rate"])
            if fields.get("per_position"):
                self.per_position = fields["per_position"]
            steps = self.speculation_steps()
            if steps is not None:
                self.live_steps.append(float(steps))

    def _switched(self, event: Event) -> None:
        """An adaptive switch: marked on the throughput plot."""
        at = self.throughput.seconds(event.ts)
        if event.kind == "spec_switch" and at is not None:
            self.throughput.switches.append((at, event.fields["from_steps"], event.fields["to_steps"]))

    def speculation_steps(self) -> int | None:
        """The draft steps running now, cheaply (the log's, else the API's): one sample of the sparkline."""
        value = self.server.speculation.value() or (self.host.speculation if self.host else None)
        return value.live_steps if value is not None else None

    def speculation(self) -> LiveSpeculation | None:
        """Configured vs live speculation (mtptui.ops.speculation_view), the launch's resolution kept per launch."""
        launch = self.host.launch if self.host else None
        if self._launch_spec[0] is not launch:
            self._launch_spec = (launch, self.engine.launch_speculation(launch))
        return current(self.server.speculation.value(), self._launch_spec[1],
                       self.host.speculation if self.host else None)

    def _restarted(self, ts: str | None, mean: float) -> None:
        """A new startup after decode batches: mark it on the plot and keep the run before's steady mean."""
        self.previous_mean = mean
        self.accept_len.clear()  # acceptance of another launch: its mean is not this run's
        self.accept_rate.clear()
        self.per_position = None
        self.live_steps.clear()
        at = self.throughput.seconds(ts)
        if at is not None:
            self.throughput.restarts.append(at)

    @property
    def up(self) -> ServerUp:
        """Whether the server is up, as mtptui.ops.server_up judges it from the connection, the host's status and
        the log: the one answer every pane, key and the health line render."""
        return server_up(self.connection, self.host, self.server)

    def quiet_s(self) -> float | None:
        """Seconds since the last byte from the host (a log line or a GPU reading), None before the first."""
        return None if self.last_byte_at is None else max(self.clock() - self.last_byte_at, 0.0)

    def uptime_s(self) -> float | None:
        """Seconds since the server started, from the host status; None when unknown."""
        started = self.host.started_at if self.host else None
        if started is None or self.up.down is not None:
            return None
        return max(self.clock() - started, 0.0)

    @property
    def steady_mean(self) -> float | None:
        """Mean gen tok/s of this startup, warm-up excluded (the line drawn on the plot)."""
        return self.server.decode.steady_gen_throughput_this_startup
