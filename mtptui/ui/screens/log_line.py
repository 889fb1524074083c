"""The log pane's Enter: one line in full, wrapped, in a dialog that scrolls (the pane itself abbreviates lines
over 1,000 characters: SGLang's ``server_args=`` line is about 11,000); `c` copies it, Escape closes."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from mtptui.ui.plain import PlainStatic as Static

class LogLineScreen(ModalScreen[None]):
    """Shows ``text`` (already cleaned of controls by the pump: mtptui.ui.pump.clean) as plain text."""

    CSS_PATH = Path(__file__).resolve().parent.parent / "flag_explain.tcss"
    BINDINGS = [
        Binding("escape,enter,q", "dismiss", "Close", id="line.close"),
        Binding("c", "copy", "Copy", id="line.copy"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="explain-body"):
            yield Static(Text(self.text, overflow="fold"), id="line-text")

    def on_mount(self) -> None:
        body = self.query_one("#explain-body")
        body.border_title = Text(self.title_text)
        body.border_subtitle = Text(f"{len(self.text):,} characters · ↓ PgDn scroll · c copies · Escape closes")
        body.focus()

    def action_copy(self) -> None:
        from mtptui.ui.clipboard import SENT, copy_note

        self.app.copy_to_clipboard(self.text)
        note = copy_note()
        self.notify(f"{len(self.text):,} characters: {note}", title="copy line",
                    severity="information" if note.startswith(SENT) else "warning")
