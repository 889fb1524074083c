"""The diff screen (d): running vs unit vs profile side by side, as SGLang resolves each value.

Differing rows are highlighted; defaults read "unset (default 0.9)" and SGLang's own choices "2 (auto)".
Rows come by impact (speculative, then memory and capacity, then the rest); Enter explains the flag under the
cursor. ``s`` shows every flag and env var or only the differing ones, ``p`` switches the profile column among the
host's profiles, ``a`` restarts with the profile shown, ``R`` restores the known-good one (both confirm first).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from mtptui.text import visible
from mtptui.ui import messages
from mtptui.ui.restart_text import side_title
from mtptui.ui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from mtptui.ui.context import HostApp

DIFFER_STYLE = "bold yellow"
WRAP_BELOW = 120  # columns of the screen below which the table's cells wrap instead of running off to the right
MAX_FLAG_WIDTH = 34


class DiffScreen(Screen):
    """Loads the sides in a worker; the handler fills the table."""

    CSS_PATH = Path(__file__).resolve().parent.parent / "diff.tcss"
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="diff.back"),
        Binding("s", "toggle_all", "All/differing", id="diff.all"),
        Binding("p", "next_profile", "Next profile", id="diff.profile"),
        Binding("a", "apply", "Apply profile", id="diff.apply"),
        Binding("enter", "explain", "Explain", id="diff.explain"),  # the table's own Enter does the same
    ]

    def __init__(self, app: "HostApp", profile: str | None = None) -> None:
        super().__init__()
        self.context = app.context
        host = self.context.host
        names = sorted(host.profiles) if host else []
        self.profile = profile or (host.known_good if host else None) or (names[0] if names else None)
        self.show_all = False
        self.sides: list = []
        self.notes: list[str] = []
        self.shown_rows: list = []  # the DiffRow or EnvRow of each table row, for Enter
        self.shown_sides: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(id="diff-head")
        yield DataTable(id="diff-table", zebra_stripes=True, cursor_type="row")
        yield Static(id="diff-legend")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#diff-head", Static).update(Text("reading the running server, the unit and the profile…",
                                                         "italic"))
        if self.profile is None:
            self.query_one("#diff-head", Static).update(Text("This host has no profiles to compare.", "yellow"))
            return
        self.load(self.profile)

    @work(exclusive=True, group="diff", exit_on_error=False)
    async def load(self, profile: str) -> None:
        from mtptui.ops.diff_sides import diff_sides

        app: "HostApp" = self.app  # type: ignore[assignment]
        sides, notes = await diff_sides(self.context.host, profile, session=self.context.session,
                                        status=app.session.host)
        self.post_message(messages.DiffLoaded(profile, sides, notes))

    def on_diff_loaded(self, message: messages.DiffLoaded) -> None:
        self.profile, self.sides, self.notes = message.profile, message.sides, message.notes
        self.fill()

    @on(Worker.StateChanged)
    def _load_failed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "diff" and event.state == WorkerState.ERROR:
            self.query_one("#diff-head", Static).update(Text(visible(f"Cannot read the sides: {event.worker.error}"),
                                                             "red"))

    def fill(self) -> None:
        from mtptui.ops.diff_sides import compare, differs

        diff = compare(self.sides, self.show_all)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        names = [len(row.flag) for row in diff.rows] + [len(env.var) + 4 for env in diff.env]
        widths = self._widths(len(diff.sides), min(max(names, default=4) + 2, MAX_FLAG_WIDTH))
        height = None if widths else 1  # None: as high as the wrapped cells
        table.add_column("flag", key="flag", width=widths[0] if widths else None)
        for index, label in enumerate(diff.sides, 1):
            table.add_column(Text(side_title(label)), width=widths[index] if widths else None)
        changed = changed_env = 0
        for row in diff.rows:
            style = DIFFER_STYLE if differs(row) else ""
            changed += bool(style)
            table.add_row(Text(("≠ " if style else "  ") + visible(row.flag), style),
                          *(Text(visible(value), style) for value in row.resolved), height=height)
        for env in diff.env:
            style = DIFFER_STYLE if len(set(env.values)) > 1 else ""
            changed_env += bool(style)
            table.add_row(Text(f"{'≠' if style else ' '} env {visible(env.var)}", style),
                          *(Text(visible(v) if v is not None else "unset", style) for v in env.values),
                          height=height)
        self.shown_rows, self.shown_sides = [*diff.rows, *diff.env], diff.sides
        self._head(diff, changed, changed_env)

    def _widths(self, sides: int, flag_width: int) -> list[int] | None:
        """Fixed column widths that fit a narrow screen (the values wrap), or None to size columns by content."""
        width = self.size.width
        if not 0 < width < WRAP_BELOW:
            return None
        room = width - 4 - 2 * (sides + 1)  # the table's border and scrollbar, two cells of padding per column
        return [flag_width] + [max((room - flag_width) // sides, 8)] * sides

    def on_resize(self) -> None:
        if self.sides:
            self.fill()

    def _head(self, diff, changed: int, changed_env: int) -> None:
        kinds = " vs ".join(side_title(label) for label in diff.sides)
        mode = "every flag and env var" if self.show_all else "differing flags only"
        head = Text.assemble(("diff ", "bold"), (kinds, "bold"), f" · {mode} · ",
                             (f"{changed} flags and {changed_env} env vars differ",
                              DIFFER_STYLE if changed or changed_env else "green"))
        for note in self.notes:
            head.append(f"\nnote: {visible(note)}", "yellow")
        self.query_one("#diff-head", Static).update(head)
        legend = ("values as SGLang resolves them: “unset (default X)” is SGLang's default, “(auto)” SGLang's "
                  "own choice · Enter explains a flag")
        self.query_one("#diff-legend", Static).update(Text(legend, "dim"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "apply" and self.context.readonly)  # not offered under --readonly

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.explain(event.cursor_row)

    def action_explain(self) -> None:
        self.explain(self.query_one(DataTable).cursor_row)

    def explain(self, index: int) -> None:
        """Open the explanation of the row at ``index`` (mtptui.sglang.flags.explain)."""
        from mtptui.sglang.flags import DiffRow
        from mtptui.sglang.flags.explain import explain_env, explain_flag
        from mtptui.ui.screens.flag_explain import FlagExplainScreen

        if not 0 <= index < len(self.shown_rows) or not self.sides:
            return
        row, labels = self.shown_rows[index], tuple(side_title(label) for label in self.shown_sides)
        if isinstance(row, DiffRow):
            explanation = explain_flag(row, labels, self.sides[0].flagset.version)
        else:
            explanation = explain_env(row, labels)
        self.app.push_screen(FlagExplainScreen(explanation))

    def action_toggle_all(self) -> None:
        self.show_all = not self.show_all
        if self.sides:
            self.fill()

    def action_next_profile(self) -> None:
        names = sorted(self.context.host.profiles) if self.context.host else []
        if len(names) < 2 or self.profile is None:
            self.notify("This host has only one profile.", timeout=3)
            return
        self.profile = names[(names.index(self.profile) + 1) % len(names)]
        self.load(self.profile)

    def action_apply(self) -> None:
        from mtptui.ui.screens.restart_flow import restart_with

        if self.profile is not None:
            restart_with(self.app, self.profile)
