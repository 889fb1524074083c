"""The find / filter line under the log: hidden until `/` or `\\` opens it; Enter keeps, Escape restores."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input

from mtptui.ui.messages import PromptChanged, PromptClosed
from mtptui.ui.plain import plain

PLACEHOLDERS = {
    "find": "find in the log (case-insensitive) · Enter keeps the highlight, n/N jump · Escape cancels",
    "filter": "filter the log: text keeps matching lines, !text hides them · empty shows all · Escape cancels",
    "since": "read the journal again from: 14:30, 2026-11-29 14:30, -30min, today, or restart · Escape cancels",
}
TITLES = {"find": "find", "filter": "filter", "since": "journal from"}


class LogPrompt(Input):
    """Posts PromptChanged as the user types and PromptClosed when done."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.mode = "find"
        self._before = ""
        self.display = False

    def open(self, mode: str, value: str) -> None:
        self.mode, self._before = mode, value
        self.placeholder = PLACEHOLDERS[mode]
        self.border_title = plain(TITLES[mode])
        self.value = value
        self.cursor_position = len(value)
        self.display = True
        self.screen.set_focus(self)  # now, not after a refresh: keys typed right after `/` land here

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.display:
            self.post_message(PromptChanged(self.mode, event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._close(cancelled=False)

    def action_cancel(self) -> None:
        self.post_message(PromptChanged(self.mode, self._before))
        self.value = self._before
        self._close(cancelled=True)

    def _close(self, cancelled: bool) -> None:
        self.display = False
        self.post_message(PromptClosed(self.mode, self.value, cancelled))
