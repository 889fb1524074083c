"""The one confirm dialog of mtptui: a question, what will happen, and two buttons; dismisses with True or False.

Every action that changes the host goes through it. ``dangerous`` styles the dialog and its button in the
error color; Cancel has the focus first, so Enter alone never changes a host.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from mtptui.text import visible


class ConfirmScreen(ModalScreen[bool]):
    """Ask once; ``y`` confirms, ``n`` / Escape cancels."""

    CSS_PATH = Path(__file__).resolve().parent.parent / "confirm.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, body: RenderableType, *, confirm_label: str = "Confirm",
                 dangerous: bool = True) -> None:
        super().__init__(classes="-dangerous" if dangerous else "")
        self.title_text, self.body, self.confirm_label = title, body, confirm_label

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            with VerticalScroll(id="confirm-body"):
                yield Static(self.body, id="confirm-text")
            with Horizontal(id="confirm-buttons"):
                yield Button("Cancel (n)", id="confirm-cancel")
                yield Button(f"{self.confirm_label} (y)", id="confirm-ok",
                             variant="error" if self.has_class("-dangerous") else "primary")

    def on_mount(self) -> None:
        self.query_one("#confirm-dialog").border_title = Text(visible(self.title_text))  # names from hosts: no markup
        self.query_one("#confirm-cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-ok")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
