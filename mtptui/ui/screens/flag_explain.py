"""The diff screen's Enter: a small modal explaining one flag (or env var) and what SGLang does with it."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from mtptui.engines.sglang.lint.explain import Explanation
from mtptui.text import visible
from mtptui.ui.plain import PlainStatic as Static


class FlagExplainScreen(ModalScreen[None]):
    """Shows an Explanation (mtptui.engines.sglang.lint.explain); Escape, Enter or q closes it."""

    CSS_PATH = Path(__file__).resolve().parent.parent / "flag_explain.tcss"
    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close", id="explain.close")]

    def __init__(self, explanation: Explanation) -> None:
        super().__init__()
        self.explanation = explanation

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="explain-body"):
            yield Static(self._table(), id="explain-text")
            yield Static(Text("Escape closes", "dim"))

    def on_mount(self) -> None:
        self.query_one("#explain-body").border_title = Text(visible(self.explanation.title))

    def _table(self) -> Table:
        table = Table(box=None, show_header=False, padding=(0, 1, 1, 0))
        table.add_column("label", style="bold", no_wrap=True)
        table.add_column("text")
        for label, text in self.explanation.parts:  # values come from hosts and files: text, never markup
            table.add_row(Text(visible(label)), Text(visible(text)))
        return table
