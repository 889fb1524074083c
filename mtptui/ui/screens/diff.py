"""The diff screen (d): running vs unit vs profile side by side, as SGLang resolves each value.

Differing rows are highlighted; defaults read "unset (default 0.9)" and SGLang's own choices "2 (auto)"; a value
SGLang runs as another keeps what was written ("NEXTN (runs as EAGLE)"). The known-good profile's column is
marked. Rows come by impact (speculative, then memory and capacity, then the rest); under the table one effect
line per differing speculative and capacity flag says what each side's value does (on a short terminal, the
line of the row under the cursor); Enter explains the flag under the cursor. ``s`` shows every flag and env var
or only the differing ones, ``p`` switches the profile column among the host's profiles, ``a`` restarts with the
profile shown, ``R`` restores the known-good one (both confirm first).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from mtptui.engines.registry import engine
from mtptui.errors import UserError
from mtptui.engines.sglang.flags.diff_text import shown_cell
from mtptui.text import visible
from mtptui.ui import messages
from mtptui.ui.context import host_app
from mtptui.ui.restart_text import side_title
from mtptui.ui.widgets.key_footer import KeyFooter
from mtptui.ui.plain import PlainStatic as Static, PlainTable as DataTable, plain

if TYPE_CHECKING:
    from mtptui.ops.launches import Side
    from mtptui.engines.sglang.flags import Diff, DiffRow, EnvRow
    from mtptui.ui.context import HostApp

DIFFER_STYLE = "bold yellow"
WRAP_BELOW = 120  # columns of the screen below which the table's cells wrap instead of running off to the right
MAX_FLAG_WIDTH = 34


class DiffScreen(Screen[None]):
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
        self.profile = profile or (host.default_profile() if host else None)
        self.show_all = False
        self.sides: list[Side] = []
        self.notes: list[str] = []
        self.shown_rows: list[DiffRow | EnvRow] = []  # the DiffRow or EnvRow of each table row, for Enter
        self.shown_sides: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(id="diff-head")
        yield DataTable(id="diff-table", zebra_stripes=True, cursor_type="row")
        yield Static(id="diff-effects")
        yield Static(id="diff-legend")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#diff-head", Static).update(Text("reading the running server, the unit and the profile…",
                                                         "italic"))
        if self.profile is None:
            self.query_one("#diff-head", Static).update(Text(self._no_profile(), "yellow"))
            return
        self.load(self.profile)

    def _no_profile(self) -> str:
        host = self.context.host
        if host is None or not host.profiles:
            return "This host has no profiles to compare."
        return (f"Host {host.name} has {len(host.profiles)} profiles and no known_good one: press p to pick the "
                "profile to compare.")

    @work(exclusive=True, group="diff", exit_on_error=False)
    async def load(self, profile: str) -> None:
        from mtptui.ops import diff_sides

        host = self.context.host
        if host is None:  # a profile to compare is a host's (on_mount, next profile)
            raise UserError("this dashboard has no host file to compare with")
        read = await diff_sides.gather_sides(host, profile, session=self.context.session,
                                             status=host_app(self).live.host)
        notes = read.notes() + [f"adaptive config of {item.line()}" for item in read.adaptive]
        self.post_message(messages.DiffLoaded(profile, read.sides, notes))

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

        host = self.context.host
        diff = compare(self.sides, self.show_all, host.engine if host else None)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        names = [len(row.flag) for row in diff.rows] + [len(env.var) + 4 for env in diff.env]
        widths = self._widths(len(diff.sides), min(max(names, default=4) + 2, MAX_FLAG_WIDTH))
        height = None if widths else 1  # None: as high as the wrapped cells
        table.add_column("flag", key="flag", width=widths[0] if widths else None)
        for index, label in enumerate(diff.sides, 1):
            title = self._title(label) if widths is None else self._title(label, compact=True)
            table.add_column(Text(title), width=widths[index] if widths else None)
        changed = changed_env = 0
        for row in diff.rows:
            style = DIFFER_STYLE if differs(row) else ""
            changed += bool(style)
            table.add_row(Text(("≠ " if style else "  ") + visible(row.flag), style),
                          *(Text(visible(shown_cell(written, value)), style)
                            for written, value in zip(row.values, row.resolved)), height=height)
        for env in diff.env:
            style = DIFFER_STYLE if len(set(env.values)) > 1 else ""
            changed_env += bool(style)
            table.add_row(Text(f"{'≠' if style else ' '} env {visible(env.var)}", style),
                          *(Text(visible(v) if v is not None else "unset", style) for v in env.values),
                          height=height)
        self.shown_rows, self.shown_sides = [*diff.rows, *diff.env], diff.sides
        self._head(diff, changed, changed_env)
        self.show_effects()

    def _title(self, label: str, compact: bool = False) -> str:
        """A column's title; the host's known-good profile is marked (R restores it). ``compact``: as short as a
        narrow column needs (running, unit, the profile's name), the mark first so it is never cut off."""
        host = self.context.host
        good = host is not None and host.known_good is not None and label == f"profile:{host.known_good}"
        if compact:
            kind, _, rest = visible(label).partition(":")
            return ("★ " if good else "") + (rest if kind == "profile" and rest else kind)
        return side_title(label) + (" ★ known-good" if good else "")

    def effect_lines(self) -> list[tuple[str, Text]]:
        """(flag, line) for every differing speculative or capacity flag: what each side's value does."""
        from mtptui.ops.diff_sides import differs
        from mtptui.ops.drift import SHORT_NAMES
        from mtptui.engines.sglang.flags import DiffRow
        from mtptui.engines.sglang.lint.effects import effect_line

        sides = ["known-good" if "★" in self._title(label) else side_title(label).split(" ")[0]
                 for label in self.shown_sides]
        lines = []
        for row in self.shown_rows:
            if not isinstance(row, DiffRow):
                continue
            line = effect_line(row.flag, row.resolved, sides) if differs(row) else None
            if line is not None:
                name = SHORT_NAMES.get(row.flag, row.flag.removeprefix("--"))
                lines.append((row.flag, Text.assemble((f"{visible(name)}: ", "bold"), visible(line))))
        return lines

    def show_effects(self, cursor: int | None = None) -> None:
        """Every effect line on a tall terminal; on a short one, the line of the row under the cursor."""
        lines = self.effect_lines()
        shown = [line for _, line in lines]
        if not self.has_class("-tall") and lines:
            index = self.query_one(DataTable).cursor_row if cursor is None else cursor
            flag = getattr(self.shown_rows[index], "flag", None) if 0 <= index < len(self.shown_rows) else None
            shown = [line for name, line in lines if name == flag] or \
                [Text(f"{len(lines)} effect lines: the row under the cursor shows its own", "dim")]
        self.query_one("#diff-effects", Static).update(plain(Text("\n").join(shown)))

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.shown_rows:
            self.show_effects(event.cursor_row)

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

    def _head(self, diff: Diff, changed: int, changed_env: int) -> None:
        kinds = " vs ".join(side_title(label) for label in diff.sides)
        mode = "every flag and env var" if self.show_all else "differing flags only"
        head = Text.assemble(("diff ", "bold"), (kinds, "bold"), f" · {mode} · ", ("★ = known-good · ", "dim"),
                             (f"{changed} flags and {changed_env} env vars differ",
                              DIFFER_STYLE if changed or changed_env else "green"))
        for note in self.notes:
            head.append(f"\nnote: {visible(note)}", "yellow")
        self.query_one("#diff-head", Static).update(head)
        host = self.context.host
        label = engine(host.engine if host else None).label
        legend = (f"values as {label} resolves them: “unset (default X)” is {label}'s default, “(auto)” {label}'s "
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
        """Open the explanation of the row at ``index`` (mtptui.engines.sglang.lint.explain)."""
        from mtptui.engines.sglang.flags import DiffRow
        from mtptui.engines.sglang.lint.explain import explain_env, explain_flag
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
        names = sorted(self.context.host.own_profiles()) if self.context.host else []
        if not names or (len(names) == 1 and self.profile is not None):
            self.notify("This host has only one profile." if names else "This host has no profiles.", timeout=3)
            return
        self.profile = names[(names.index(self.profile) + 1) % len(names)] if self.profile in names else names[0]
        self.load(self.profile)

    def action_apply(self) -> None:
        from mtptui.ui.screens.restart_flow import restart_with

        if self.profile is not None:
            restart_with(host_app(self), self.profile)
