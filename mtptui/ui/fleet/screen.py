"""The fleet screen: a header, one table row per instance (figures, sparkline, health flag), the selected
row's detail, and a filter prompt. One worker refreshes from Prometheus; handlers own what is shown."""

from __future__ import annotations

import time
from typing import Awaitable, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from mtptui.fleet.hosts import HostEntry
from mtptui.fleet.rows import Row, Snapshot
from mtptui.fleet.settings import FleetSettings
from mtptui.fleet.view import COLUMNS, COLUMNS_BY_WIDTH, Drill, FleetView, cells, columns_for, detail
from mtptui.text import visible
from mtptui.ui.fleet.header import header_text
from mtptui.ui.widgets.key_footer import KeyFooter
from mtptui.ui.plain import PlainTable as DataTable, PlainStatic as Static

FLAG_STYLE = {"ok": "bold green", "warn": "bold yellow", "down": "bold red"}
KEY_SEP = "\x00"


Collector = Callable[[], Awaitable[Snapshot]]  # a Snapshot without Prometheus (tests' fixed figures)


class FleetScreen(Screen[None]):
    """Rows from Prometheus, refreshed every ``refresh_s``; Enter ends the app with the row's host."""

    BINDINGS = [
        Binding("enter", "drill", "Dashboard", id="fleet.open", priority=True),
        Binding("s", "sort", "Sort", id="fleet.sort"),
        Binding("S", "reverse", "Reverse", id="fleet.reverse"),
        Binding("slash", "filter", "Filter", id="fleet.filter", priority=True),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="fleet.clear"),
        Binding("r", "refresh", "Refresh", id="fleet.refresh"),
    ]

    def __init__(self, settings: FleetSettings, hosts: dict[str, HostEntry], view: FleetView,
                 collector: Collector | None = None, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.settings, self.hosts, self.view = settings, hosts, view
        self.collector, self.clock = collector, clock
        self.error: str | None = None
        self.updated_at: float | None = None
        self.columns: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(id="fleet-header")
        yield DataTable(id="fleet-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="fleet-detail")
        yield Input(placeholder="filter: text in instance, job, version, host or health; !text hides",
                    id="fleet-filter")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._fit_columns()
        self.query_one("#fleet-filter", Input).display = False
        self.show()
        if self.view.notice:
            self.app.notify(self.view.notice, title="dashboard", severity="error", timeout=10)
            self.view.notice = None
        self.refresh_fleet()

    async def _collect(self) -> Snapshot:
        if self.collector is not None:
            return await self.collector()
        from mtptui.fleet.refresh import refresh

        return await refresh(self.settings, self.hosts)

    @work(exclusive=True, group="fleet-refresh", exit_on_error=False)
    async def refresh_fleet(self) -> Snapshot:
        return await self._collect()

    @on(Worker.StateChanged)
    def _refreshed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "fleet-refresh" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        if event.state == WorkerState.SUCCESS:
            self.view.snapshot, self.error, self.updated_at = event.worker.result, None, self.clock()
        else:
            self.error = str(event.worker.error)
            self.app.notify(self.error, title="Prometheus", severity="error", timeout=8)
        self.show()
        self.set_timer(self.settings.refresh_s, self.refresh_fleet)  # re-armed here: two never overlap

    def on_resize(self) -> None:
        if self._fit_columns():
            self.show()

    def _fit_columns(self) -> bool:
        """The columns of the terminal's width class (mtptui/ui/layout.py); True when they changed."""
        width_class = next((c for c in COLUMNS_BY_WIDTH if self.has_class(c)), "-wide")
        columns = columns_for(width_class, self.settings.gateway is not None)
        if columns == self.columns:
            return False
        self.columns = columns
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for title in columns:
            table.add_column(Text(title, justify="right" if COLUMNS[title][1] else "left"), key=title or "flag")
        return True

    def show(self) -> None:
        """Header, rows (the selection kept) and the detail line, from the view."""
        self.query_one("#fleet-header", Static).update(header_text(self.settings, self.view, self.error,
                                                                   self.updated_at))
        table = self.query_one(DataTable)
        selected = self.view.selected
        table.clear()
        rows = self.view.rows()
        for row in rows:
            table.add_row(*self._cells(row), key=KEY_SEP.join(row.key))
        keys = [r.key for r in rows]
        if selected in keys:
            table.move_cursor(row=keys.index(selected))
        self._show_detail()

    def _cells(self, row: Row) -> list[Text]:
        out = []
        for title, text in zip(self.columns, cells(row, self.columns)):
            style = FLAG_STYLE.get(row.health, "") if title in ("", "state") else ""
            out.append(Text(visible(text), style=style, justify="right" if COLUMNS[title][1] else "left"))
        return out

    def current(self) -> Row | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or ""
        wanted = tuple(key.split(KEY_SEP, 1))
        return next((r for r in self.view.rows() if r.key == wanted), None)

    def _show_detail(self) -> None:
        row = self.current()
        text = detail(row) if row else "no SGLang instance among the targets (yet)"
        self.query_one("#fleet-detail", Static).update(Text(visible(text)))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        row = self.current()
        if row is not None:
            self.view.selected = row.key
        self._show_detail()

    def action_drill(self) -> None:
        if self.focused is self.query_one("#fleet-filter"):
            self.query_one(DataTable).focus()
            return
        row = self.current()
        if row is None:
            return
        entry = self.hosts.get(row.instance)
        if entry is None:
            from mtptui.fleet.hosts import no_profile_hint

            self.app.notify(no_profile_hint(row.instance), title="no host profile", severity="warning", timeout=10)
            return
        self.app.exit(Drill(entry[0], entry[1], row.instance))

    def action_sort(self) -> None:
        self.view.next_sort()
        self.show()

    def action_reverse(self) -> None:
        self.view.reverse = not self.view.reverse
        self.show()

    def action_filter(self) -> None:
        prompt = self.query_one("#fleet-filter", Input)
        prompt.display = True
        prompt.value = self.view.filter
        prompt.focus()

    def action_clear_filter(self) -> None:
        prompt = self.query_one("#fleet-filter", Input)
        prompt.value, prompt.display = "", False
        self.view.filter = ""
        self.query_one(DataTable).focus()
        self.show()

    @on(Input.Changed, "#fleet-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.view.filter = event.value.strip()
        self.show()

    def action_refresh(self) -> None:
        self.refresh_fleet()
