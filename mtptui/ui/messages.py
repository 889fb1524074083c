"""Every message of the dashboard, in one place (habit from Toolong's messages.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from textual.message import Message

from mtptui.ops.feed.items import Connection, GatewayReading, GpuReading, HostStatus
from mtptui.engines.sglang.logparse import Event
from mtptui.ui.logbuffer import LogLine

if TYPE_CHECKING:
    from mtptui.bench.events import RequestDone, RunStarted
    from mtptui.bench.rate import RateSample
    from mtptui.ops.bench_run import BenchOutcome
    from mtptui.ops.launches import Side
    from mtptui.ops.metrics_feed import ServerMetrics
    from mtptui.ops.progress import RestartEvent
    from mtptui.ops.restart.plan import RestartPlan
    from mtptui.ops.restart.result import RestartResult
    from mtptui.ops.tune.plan import TunePlan
    from mtptui.ops.tune.state import TuneEvent, TuneRun


@dataclass
class LogBatch(Message, bubble=False):
    """Lines and the events parsed from them since the last batch (posted at most ~10 times a second).

    ``dropped`` counts lines left out of ``lines`` because one batch held more than the view keeps; their
    events are all in ``events``. ``holding``: an error is still held back after this batch (its traceback may
    go on); a later batch releases it.
    """

    lines: list[LogLine]
    events: list[Event]
    dropped: int = 0
    holding: bool = False


@dataclass
class LogReread(Message, bubble=False):
    """The log is read again from ``since`` (the journal since a time): the lines and figures so far go."""

    since: str


@dataclass
class ConnectionChanged(Message, bubble=False):
    """The log connection changed state (connected / reconnecting in N s / failed: why)."""

    connection: Connection

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ConnectionChanged)


@dataclass
class HostChanged(Message, bubble=False):
    """New host status: service state, SGLang version, running launch, start time, GPUs."""

    status: HostStatus

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, HostChanged)


@dataclass
class GpusRead(Message, bubble=False):
    """One poll of nvidia-smi: the GPUs' figures, or why there are none (said once, not at every poll)."""

    reading: GpuReading


@dataclass
class GatewayRead(Message, bubble=False):
    """The gateway's workers changed (mtptui.ops.gateway_poll), or the problem that keeps it from answering."""

    reading: GatewayReading


@dataclass
class FeedEnded(Message, bubble=False):
    """The feed has no more items (closed, or its source ended)."""


@dataclass
class FollowChanged(Message):
    """The log view started or stopped following the end of the log."""

    following: bool
    new_lines: int = 0


@dataclass
class PromptChanged(Message):
    """The find or filter prompt's text changed (``mode`` is "find" or "filter")."""

    mode: str
    value: str


@dataclass
class PromptClosed(Message):
    """The find or filter prompt closed; ``cancelled`` when Escape restored the previous value."""

    mode: str
    value: str
    cancelled: bool = False


@dataclass
class LineCopied(Message, bubble=False):
    """The current log line went to the clipboard."""

    text: str


@dataclass
class ActionRefused(Message, bubble=False):
    """An action that changes the host was refused (``--readonly``) or is not available."""

    action: str
    reason: str


# Restart flow (mtptui.ui.widgets.restart_panel) --------------------------------------------------------------


@dataclass
class RestartPlanned(Message, bubble=False):
    """A restart plan is ready to be confirmed (mtptui.ops.restart.plan.RestartPlan); ``handback`` the plan handing a
    hand-started server back to its unit instead (mtptui.ops.restart.handback), or why there is none."""

    plan: RestartPlan
    handback: RestartPlan | None = None
    handback_note: str | None = None


@dataclass
class RestartProgress(Message, bubble=False):
    """One step of a running restart (mtptui.ops.progress.RestartEvent)."""

    event: RestartEvent


@dataclass
class RestartFinished(Message, bubble=False):
    """The restart ended (mtptui.ops.restart.run.RestartResult): ready, rolled back, or rollback failed."""

    result: RestartResult


@dataclass
class RestartBegan(Message):
    """The restart panel started a confirmed restart (bubbles to the dashboard: the "now" figures clear)."""

    profile: str


@dataclass
class RestartEnded(Message):
    """The restart panel's restart ended, however it ended (bubbles to the dashboard)."""

    ok: bool


@dataclass
class RestartCancelled(Message, bubble=False):
    """The user said no in the confirm dialog: nothing was changed."""

    profile: str


@dataclass
class ProfileSaved(Message, bubble=False):
    """The flags form saved a profile (``known_good`` when it became the host's known-good one) to ``path``."""

    name: str
    path: str
    known_good: bool = False


# Bench screen (mtptui.ui.screens.bench) ------------------------------------------------------------------------


@dataclass
class BenchStarted(Message, bubble=False):
    """The server answered and the run began (mtptui.bench.events.RunStarted)."""

    event: RunStarted


@dataclass
class BenchSamples(Message, bubble=False):
    """Every per-second sample of the run so far (RateSample): a newer message replaces a queued one losslessly."""

    samples: tuple[RateSample, ...]

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, BenchSamples)


@dataclass
class BenchRequestDone(Message, bubble=False):
    """One request finished or failed (mtptui.bench.events.RequestDone)."""

    event: RequestDone


@dataclass
class BenchNotice(Message, bubble=False):
    """A warning about the measurement worth a toast."""

    message: str


@dataclass
class BenchFinished(Message, bubble=False):
    """The run is recorded in history and compared (mtptui.ops.bench_run.BenchOutcome)."""

    outcome: BenchOutcome


@dataclass
class BenchFailed(Message, bubble=False):
    """The run could not be made (server unreachable, bad prompt set): one sentence."""

    reason: str


@dataclass
class DiffLoaded(Message, bubble=False):
    """The diff screen's sides were read (mtptui.ops.launches.Side list) with notes about missing ones."""

    profile: str
    sides: list[Side]
    notes: list[str]


# Tune screen (mtptui.ui.screens.tune) ------------------------------------------------------------------------


@dataclass
class TunePlanned(Message, bubble=False):
    """The tune is planned (mtptui.ops.tune.plan.TunePlan): nothing changed yet; the confirm dialog comes next."""

    plan: TunePlan


@dataclass
class TuneStarted(Message, bubble=False):
    """The tune runs: ``run`` is its live TuneRun (read by the screen, changed only by the tuner), ``abort`` stops
    it (the original launch is restored)."""

    run: TuneRun
    abort: Callable[[], object]


@dataclass
class TuneProgress(Message, bubble=False):
    """Something happened in the tune (mtptui.ops.tune.state.TuneEvent)."""

    event: TuneEvent


@dataclass
class TuneEnded(Message, bubble=False):
    """The tune ended (finished or aborted) and the final restart ran; ``run`` says how it went."""

    run: TuneRun


@dataclass
class TuneFailed(Message, bubble=False):
    """The tune could not be planned or stopped on an error: one sentence."""

    reason: str


@dataclass
class MetricsChanged(Message, bubble=False):
    """A /metrics scrape of the server (mtptui.ops.metrics_feed.ServerMetrics), or why there is none."""

    metrics: ServerMetrics

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, MetricsChanged)


@dataclass
class HistoryLoaded(Message, bubble=False):
    """The bench history was read (the baselines of the health line come from it)."""

    runs: list[dict[str, Any]]
