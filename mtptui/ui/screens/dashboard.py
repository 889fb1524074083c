"""The dashboard: header, startup, GPU memory, speculation, throughput and the log, fed by one worker.

The worker (``follow_feed``) only reads, parses and posts; the handlers here own the LiveHost, hand lines to
the log view at once (batched ~10 Hz by the pump) and repaint the panes at most twice a second, only the
panes that changed, and not while another screen is on top.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from mtptui.ops.feed.items import Connection, Feed
from mtptui.ops.health.assess import HealthAssessor
from mtptui.ops.own_polls import own_poll_test
from mtptui.engines.sglang.state import phases
from mtptui.ui import messages
from mtptui.ui.format import duration, offline_text
from mtptui.ui.paint_throttle import PaintThrottle
from mtptui.ui.pump import FeedPump
from mtptui.engines.sglang.logparse.timestamps import parse_ts
from mtptui.ui.live_host import Changes, LiveHost
from mtptui.ui.widgets.gateway_pane import GatewayPane
from mtptui.ui.widgets.gpu_pane import GpuPane
from mtptui.ui.widgets.header_bar import HeaderBar
from mtptui.ui.widgets.key_footer import KeyFooter
from mtptui.ui.widgets.health_line import HealthLine
from mtptui.ui.widgets.log_prompt import LogPrompt
from mtptui.ui.widgets.log_view import LogView
from mtptui.ui.widgets.memory_pane import MemoryPane
from mtptui.ui.widgets.restart_panel import RestartPanel
from mtptui.ui.widgets.serving_pane import ServingPane
from mtptui.ui.widgets.speculation_pane import SpeculationPane
from mtptui.ui.widgets.startup_pane import StartupPane
from mtptui.ui.widgets.stats_strip import StatsStrip
from mtptui.ui.widgets.throughput_pane import ThroughputPane
from mtptui.ui.plain import plain

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ui.context import AppContext

PAINT_INTERVAL_S = 0.5
PANES = ("header", "strip", "startup", "memory", "speculation", "throughput", "serving", "gpus", "gateway")
DOWN_PANES = ("startup", "memory", "speculation", "throughput", "serving")
MAX_ERROR_TOASTS = 3
STARTUP_ROWS, TOP_ROW_MAX = 6, 14


class LivePane(Protocol):
    """A pane of PANES: it repaints itself from the LiveHost."""

    def show(self, live: LiveHost) -> None: ...


class DashboardScreen(Screen[None]):
    """Everything at once; the log takes the remaining height. On a small terminal the size classes
    (mtptui.ui.layout) swap the panes for a compact strip, so the log keeps its room."""

    BINDINGS = [
        # priority: the prompt takes the focus before the next key is routed, so fast typing is not lost
        Binding("slash", "find", "Find", id="log.find", priority=True),
        Binding("backslash", "filter", "Filter", id="log.filter", priority=True),
        Binding("n", "find_next(True)", "Next match", show=False, id="log.next"),
        Binding("N", "find_next(False)", "Previous match", show=False, id="log.prev"),
        Binding("escape", "clear_find", "Clear find", show=False, id="log.clear-find"),
        Binding("w", "wrap", "Wrap", id="log.wrap"),
        Binding("space", "follow", "Pause/follow", id="log.pause"),
        Binding("c", "copy_line", "Copy line", id="log.copy"),
        Binding("enter", "open_line", "Full line", show=False, id="log.line"),
        Binding("L", "log_since", "Journal from…", show=False, id="log.since"),
        Binding("o", "own_polls", "Own polls", show=False, id="log.own-polls"),
        Binding("x", "dismiss_banner", "Dismiss", id="restart.dismiss"),
        Binding("C", "reconnect", "Reconnect", id="host.reconnect"),
        Binding("1", "plot_window('1m')", "Plot: last minute", show=False, id="plot.1m"),
        Binding("5", "plot_window('5m')", "Plot: last 5 minutes", show=False, id="plot.5m"),
        Binding("0", "plot_window('all')", "Plot: whole log", show=False, id="plot.all"),
    ]

    FOOTER_LAST = ("find", "filter", "wrap", "follow", "copy_line")  # the footer leaves these out first (KeyFooter)

    def __init__(self, feed: Feed, live: LiveHost, context: "AppContext") -> None:
        super().__init__()
        self.feed = feed
        self.live = live
        self.context = context
        self._dirty: set[str] = set(PANES) | {"health"}
        self.history_runs: list[dict[str, Any]] = []  # the bench history, re-read whenever the dashboard comes back
        self.health = HealthAssessor()  # the drift and the baselines, remembered between repaints
        self._throttle = PaintThrottle(self, self.paint, PAINT_INTERVAL_S)
        self.batch_shown = asyncio.Event()  # set as each LogBatch is handled: the pump's backpressure

    def compose(self) -> ComposeResult:
        with Vertical(id="top-lines"):  # docked: the header and the health line never scroll away
            yield HeaderBar(self.context.host_label, self.context.readonly, id="header")
            yield HealthLine(id="health")
        yield StatsStrip(self._host_name, id="strip")  # instead of the panes on a small terminal (dashboard.tcss)
        yield RestartPanel(self.context, id="restart")
        with Horizontal(id="row-top"):
            yield StartupPane(id="startup")
            yield MemoryPane(id="memory")
        with Horizontal(id="row-mid"):
            yield SpeculationPane(id="speculation")
            yield ThroughputPane(id="throughput")
            yield ServingPane(id="serving")
        yield GpuPane(id="gpus")
        yield GatewayPane(id="gateway")  # shown only for a host behind a gateway
        yield LogView(id="log", own_poll=own_poll_test(self.live.engine.poll_paths))
        yield LogPrompt(id="log-prompt")
        yield KeyFooter()

    def on_mount(self) -> None:
        for pane, title in (("startup", "startup"), ("memory", "GPU memory"), ("speculation", "speculation"),
                            ("serving", "serving")):
            self.query_one(f"#{pane}").border_title = plain(title)
        self.log_view.update_title()
        self.log_view.focus()
        self.paint()
        self.set_interval(1.0, self._tick)
        self.follow_feed()
        self.read_history()
        if self.context.session is not None:
            self.look_for_tune_marker(self.context.session)

    @property
    def log_view(self) -> LogView:
        return self.query_one(LogView)

    @property
    def restart_panel(self) -> RestartPanel:
        return self.query_one(RestartPanel)

    @property
    def prompt(self) -> LogPrompt:
        return self.query_one(LogPrompt)

    # The worker ------------------------------------------------------------------------------------------

    @work(exclusive=True, group="feed", exit_on_error=False)
    async def follow_feed(self) -> None:
        """Read the feed until it ends; everything reaches the handlers as messages."""
        await FeedPump(self.feed, self.post_message, self.batch_shown, new_parser=self.live.engine.new_parser).run()

    @work(exclusive=True, group="tune-marker", exit_on_error=False)
    async def look_for_tune_marker(self, session: HostSession) -> None:
        """A tune that did not finish on this host: say so, and offer the restart (r) with its original."""
        from mtptui.ops.tune_marker import interrupted_sentence, read_marker

        marker = await read_marker(session)
        if marker is not None:
            self.notify(f"{interrupted_sentence(marker, self._host_name)}; or press r and pick it here",
                        title="tune interrupted", severity="error", timeout=30)

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def read_history(self) -> None:
        """The bench history, off the event loop (a file that may be megabytes)."""
        from mtptui.bench.history import load_runs

        self.post_message(messages.HistoryLoaded(load_runs()))

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "feed" and event.state == WorkerState.ERROR:
            error = event.worker.error
            self.live.connection = Connection("failed", str(error) or type(error).__name__)
            self.notify(f"Reading the log failed: {self.live.connection.reason}", title="feed",
                        severity="error", timeout=10)
            self.mark("header")
        elif event.worker.group == "history" and event.state == WorkerState.ERROR:
            self.notify(f"Reading the bench history failed: {event.worker.error}", title="health",
                        severity="warning")

    # Handlers --------------------------------------------------------------------------------------------

    def on_log_batch(self, message: messages.LogBatch) -> None:
        self.batch_shown.set()  # the pump may post the next batch (set first: a failing handler never stalls it)
        changes = self.live.apply(message.events)
        self.live.lines_seen += len(message.lines) + message.dropped
        if message.lines:
            self.live.last_byte_at = self.live.clock()
        self.live.error_held = message.holding
        self.log_view.append_lines(message.lines)
        if changes.startup or changes.errors or changes.warnings or changes.phase_from != self.live.server.phase:
            self._dirty |= {"startup", "memory", "strip"}
        if changes.decode or changes.speculation:
            self._dirty |= {"speculation", "throughput", "startup", "strip"}
        self._dirty |= {"serving", "health"}
        self._announce(changes)
        self._throttle.request()

    def on_connection_changed(self, message: messages.ConnectionChanged) -> None:
        before, self.live.connection = self.live.connection, message.connection
        state = message.connection.state
        if state != before.state and state == "failed":
            self.notify(str(message.connection), title="log connection", severity="error", timeout=10)
        elif state != before.state and state == "reconnecting":
            self.notify(str(message.connection), title="log connection", severity="warning")
        if state != before.state:
            self.app.refresh_bindings()  # the keys that need the host come and go with it
        self.mark(*PANES, "health")  # every pane says whether the host answers

    def on_host_changed(self, message: messages.HostChanged) -> None:
        self.live.host = message.status
        self.mark(*PANES, "health")  # a stopped or restarted server changes what every pane says

    def on_metrics_changed(self, message: messages.MetricsChanged) -> None:
        if self.live.awaiting_new:
            return  # a scrape of the old process, or of none
        scrape = message.metrics
        self.live.serving.apply_metrics(scrape.t, scrape.figures, scrape.missing)
        self.mark("serving")

    def on_restart_began(self, message: messages.RestartBegan) -> None:
        """The old process's figures are not the new profile's: they clear, and the health line says what comes."""
        self.live.new_process()
        self.mark(*PANES, "health")

    def on_restart_ended(self, message: messages.RestartEnded) -> None:
        self.live.awaiting_new = False  # a rollback that never stopped the server starts no new process
        self.mark(*PANES, "health")

    def on_history_loaded(self, message: messages.HistoryLoaded) -> None:
        self.history_runs = message.runs
        self.mark("health")

    def on_gpus_read(self, message: messages.GpusRead) -> None:
        self.live.gpus.add(message.reading)
        if message.reading.gpus:
            self.live.last_byte_at = self.live.clock()
        self.mark("gpus", "memory")  # one poll for both panes

    def on_gateway_read(self, message: messages.GatewayRead) -> None:
        self.live.gateway = message.reading
        self.mark("gateway")

    def on_feed_ended(self, message: messages.FeedEnded) -> None:
        if self.live.connection.state not in ("failed", "stopped"):
            self.live.connection = Connection("stopped")
        self.mark("header")

    def _announce(self, changes: Changes) -> None:
        """Toasts for what an operator must not miss: errors, a crash, the server becoming ready."""
        for error in changes.errors[:MAX_ERROR_TOASTS]:
            self.notify(str(error.get("message", "error"))[:300], title="server error", severity="error", timeout=10)
        state = self.live.server
        if changes.phase_from == state.phase:
            return
        if state.phase == phases.READY and state.startups:
            took = _startup_seconds(state.startup.started_at, state.ready_at)
            self.notify(f"Server ready{f' after {duration(took)} of startup' if took is not None else ''}.",
                        title="server")
        elif state.phase == phases.CRASHED:
            self.notify("The server crashed; see the log.", title="server", severity="error", timeout=15)

    # Painting --------------------------------------------------------------------------------------------

    def mark(self, *panes: str) -> None:
        self._dirty.update(panes)
        self._throttle.request()

    def paint(self, everything: bool = False) -> None:
        """Repaint the changed panes now (all of them with ``everything``)."""
        if not self.is_current and not everything:
            return
        dirty, self._dirty = (set(PANES) | {"health"} if everything else self._dirty), set()
        with self.app.batch_update():
            for name in PANES:
                if name in dirty:
                    self._pane(name).show(self.live)
            if "health" in dirty:
                self._show_health()
            if "memory" in dirty:
                rows = max(STARTUP_ROWS, MemoryPane.rows(self.live)) + 2
                self.query_one("#row-top").styles.height = min(rows, TOP_ROW_MAX)
            self._show_down()
        self._throttle.painted()

    def _show_health(self) -> None:
        live = self.live
        self.query_one(HealthLine).show_health(self.health.assess(
            self.context.host, live.host, live.serving, self.history_runs, live.up,
            restarting_to=self.restart_panel.restarting_to, speculation=live.speculation()))

    def _show_down(self) -> None:
        """A stopped or crashed server, or a host that does not answer: every pane says so, in the error colour
        (its figures are the last ones it sent)."""
        up = self.live.up
        down, offline = up.down, up.offline
        said = f"server {down} · last run's figures" if down else ""
        for name in DOWN_PANES + ("gpus",):
            pane = self.query_one(f"#{name}")
            pane.set_class(bool(said or offline), "-down")
            if offline:
                pane.border_subtitle = plain(offline_text(offline, self._host_name, pane.size.width - 6))
            elif name not in ("throughput", "gpus"):  # the plot and the GPUs write their own otherwise
                pane.border_subtitle = plain(said)

    def _pane(self, name: str) -> LivePane:
        # Textual types a query by id as Widget; the PANES are the panes compose() yields, each a LivePane
        return cast(LivePane, self.query_one(f"#{name}"))

    @property
    def _host_name(self) -> str:
        return self.context.host.name if self.context.host else self.context.host_label

    def _tick(self) -> None:
        """Once a second: the uptime in the header."""
        if self.is_current:
            self.query_one(HeaderBar).show(self.live)

    def on_resize(self) -> None:
        """The panes' new widths decide how the "not connected" subtitles are worded."""
        self.call_after_refresh(self._show_down)

    def on_screen_resume(self) -> None:
        self.paint()
        self.read_history()  # a bench run on the bench screen may have added a baseline

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reconnect":
            return self.live.up.offline is not None
        if action == "dismiss_banner":
            return self.is_mounted and self.restart_panel.finished
        if action == "clear_find":
            return self.is_mounted and bool(self.log_view.find_text)
        return True

    def action_plot_window(self, window: str) -> None:
        """The throughput plot's time window (1m, 5m or all)."""
        self.query_one(ThroughputPane).time_window = window
        self.mark("throughput")

    def action_clear_find(self) -> None:
        self.log_view.set_find("")

    def action_reconnect(self) -> None:
        """Try the host again now instead of at the end of the backoff."""
        reconnect = getattr(self.feed, "reconnect", None)
        if reconnect is None:
            self.notify("This feed cannot reconnect by itself.", severity="warning")
            return
        reconnect()
        self.notify(f"Connecting to {self._host_name} again…", title="host", timeout=4)

    def action_dismiss_banner(self) -> None:
        self.restart_panel.dismiss()
        self.refresh_bindings()

    # Log actions -----------------------------------------------------------------------------------------

    def action_find(self) -> None:
        if not self._typed_into_prompt("slash", "/"):
            self.prompt.open("find", self.log_view.find_text)

    def action_filter(self) -> None:
        line_filter = self.log_view.buffer.filter
        if not self._typed_into_prompt("backslash", "\\"):
            self.prompt.open("filter", str(line_filter) if line_filter else "")

    def _typed_into_prompt(self, key: str, character: str) -> bool:
        """In the open prompt, `/` and `\\` are text: handed on as keys, behind any keys still queued there."""
        if self.focused is self.prompt:  # set at once by set_focus (has_focus waits for the Focus event)
            self.prompt.post_message(events.Key(key, character))
            return True
        return False

    def action_clear_filter(self) -> None:
        self.log_view.set_filter("")

    def action_find_next(self, forward: bool) -> None:
        if not self.log_view.find_text:
            self.notify("Nothing to find yet: press / and type.", timeout=3)
        elif not self.log_view.find_next(forward):
            self.notify(f"“{self.log_view.find_text}” is not in the log.", timeout=3)

    def action_wrap(self) -> None:
        self.log_view.set_wrap(not self.log_view.wrap)

    def action_own_polls(self) -> None:
        """Show or hide mtptui's own /metrics, /server_info and /health requests in the log."""
        self.log_view.own_polls = not self.log_view.own_polls

    def action_follow(self) -> None:
        self.log_view.toggle_follow()

    def action_open_line(self) -> None:
        """The current line in full, in a dialog (the pane abbreviates long ones)."""
        from mtptui.ui.screens.log_line import LogLineScreen

        seq = self.log_view.current_seq
        if seq is None:
            self.notify("The log is empty: no line to show.", timeout=3)
            return
        self.app.push_screen(LogLineScreen(f"log line {seq + 1:,}", self.log_view.buffer.full_text(seq)))

    def action_copy_line(self) -> None:
        line = self.log_view.current_text()
        if line is None:
            self.notify("The log is empty: nothing to copy.", timeout=3)
            return
        from mtptui.secrets import mask_text
        from mtptui.ui.clipboard import SENT, copy_note

        text = mask_text(line)  # server_args=ServerArgs(..., api_key='...') never reaches the clipboard

        self.app.copy_to_clipboard(text)
        shown = text if len(text) <= 80 else text[:77] + "…"
        note = copy_note()
        self.notify(f"{shown}\n{note}", title="copy line", timeout=3 if note == SENT else 8,
                    severity="information" if not note.startswith("not copied") else "warning")
        self.post_message(messages.LineCopied(text))

    def action_log_since(self) -> None:
        """Read the journal again from a time or from the server's last start (a file log has no times)."""
        if not getattr(self.feed, "rereads", False):
            self.notify(f"{self.feed.label}: only a journal can be read from a time; a log file is followed from "
                        f"its last lines.", title="log", severity="warning")
            return
        self.prompt.open("since", "restart")

    async def reread_since(self, text: str) -> None:
        from mtptui.errors import UserError
        from mtptui.ops.log_since import journal_since
        from mtptui.remote.logsource import Start

        status = self.live.host
        try:
            since, name = journal_since(text, status.started_at if status else None)
            await self.feed.reread(Start.since_time(since), name)  # type: ignore[attr-defined]
        except UserError as exc:
            self.notify(str(exc), title="log", severity="warning")

    def on_log_reread(self, message: messages.LogReread) -> None:
        """The journal again from a time: the lines and the figures parsed so far give way to what it holds."""
        self.live.reset_log()
        self.log_view.clear()
        self.mark(*PANES, "health")

    def on_prompt_changed(self, message: messages.PromptChanged) -> None:
        if message.mode == "find":
            self.log_view.set_find(message.value)
        elif message.mode == "filter":
            self.log_view.set_filter(message.value)

    def on_prompt_closed(self, message: messages.PromptClosed) -> None:
        self.log_view.focus()
        if message.mode == "find" and message.value and not message.cancelled:
            self.log_view.find_next(forward=not self.log_view.following)
        elif message.mode == "filter" and message.value and not message.cancelled:
            self.log_view.resume()  # tail -f | grep: the matching lines as they come
        elif message.mode == "since" and message.value.strip() and not message.cancelled:
            self.run_worker(self.reread_since(message.value), group="reread", exit_on_error=False)


def _startup_seconds(started: str | None, ready: str | None) -> float | None:
    begin, end = parse_ts(started), parse_ts(ready)
    return end - begin if begin is not None and end is not None else None
