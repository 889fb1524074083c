"""The gateway pane: the workers of the SGLang gateway in front of this host's server, polled every few seconds
(mtptui.ops.gateway_poll). One line per worker: its URL, status, health, the requests the gateway has in flight to
it, the server's own running and waiting requests where the gateway reports them, and its SGLang version; this
host's worker is marked. Shown only for a host whose file names a ``[gateway]``; a gateway that does not answer
gets one sentence."""

from __future__ import annotations

from rich.console import JustifyMethod
from rich.table import Table
from rich.text import Text

from mtptui.gateway.workers import Worker
from mtptui.ops.gateway_poll import GatewayReading
from mtptui.text import visible
from mtptui.ui.format import NONE
from mtptui.ui.plain import plain
from mtptui.ui.live_host import LiveHost
from mtptui.ui.widgets.render_pane import RenderPane

STATUS_STYLE = {"ready": "green", "draining": "yellow", "pending": "yellow", "not_ready": "yellow", "failed": "red"}
MAX_ROWS = 6


def _count(value: int | None) -> str:
    return NONE if value is None else str(value)


def _row(worker: Worker, mine: bool) -> list[Text]:
    status = worker.status or "listed"
    health = NONE if worker.healthy is None else "healthy" if worker.healthy else "unhealthy"
    return [Text(("▶ " if mine else "  ") + visible(worker.url), "bold" if mine else ""),
            Text(status, STATUS_STYLE.get(status, "")), Text(health, "" if worker.healthy is not False else "red"),
            Text(_count(worker.load)), Text(f"{_count(worker.running)}/{_count(worker.waiting)}"),
            Text(visible(worker.version or NONE))]


def gateway_table(reading: GatewayReading) -> Table:
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    columns: tuple[tuple[str, JustifyMethod], ...] = (("worker", "left"), ("status", "left"), ("health", "left"),
                                                      ("in flight", "right"), ("run/queue", "right"),
                                                      ("version", "left"))
    for title, justify in columns:
        table.add_column(title, justify=justify, no_wrap=True)
    mine = [w for w in reading.workers if w.url == reading.mine]
    others = [w for w in reading.workers if w.url != reading.mine]
    for worker in (mine + others)[:MAX_ROWS]:
        table.add_row(*_row(worker, worker.url == reading.mine))
    return table


class GatewayPane(RenderPane):
    """Hidden until the first reading (a host without a gateway never gets one); its height follows the workers."""

    _height = 3

    DEFAULT_CSS = """
    GatewayPane {
        display: none;
        height: 3;
        padding: 0 1;
        border: round $border;
        border-title-color: $primary;
        border-title-style: bold;
        border-subtitle-color: $foreground 70%;
        background: $surface;
    }
    GatewayPane.-shown {
        display: block;
    }
    """

    def show(self, live: LiveHost) -> None:
        reading = live.gateway
        if reading is None:
            return
        self.add_class("-shown")
        rows = 1 + min(len(reading.workers), MAX_ROWS) if reading.workers else 1
        if rows + 2 != self._height:
            self._height = self.styles.height = rows + 2
        self.border_title = plain(f"gateway · {reading.gateway}" + (f" · {reading.generation}"
                                                                    if reading.generation else ""))
        ready = sum(w.ready for w in reading.workers)
        self.border_subtitle = plain(reading.problem if reading.problem else
                                     f"{ready} of {len(reading.workers)} workers ready")
        if reading.workers:
            self.set(gateway_table(reading))
        else:
            self.set(Text(visible(reading.problem or "the gateway lists no worker"), "dim"))
