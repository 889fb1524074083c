"""The one confirm dialog of mtptui: a question, what will happen, and two buttons; dismisses with True or False.

Every action that changes the host goes through it. ``dangerous`` styles the dialog and its button in the
error color; Cancel has the focus first, so Enter alone never changes a host. The body scrolls under the
buttons (arrows, PgUp/PgDn, Home/End) while they keep the focus, and a line beside them says when there is
more below. With ``plain`` (the body as plain text, e.g. the whole restart plan) `c` copies it and `s` saves it
to a file under ``$XDG_STATE_HOME/mtptui/plans/``.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen

from mtptui.text import visible
from mtptui.ui.plain import PlainButton as Button, PlainLabel as Label, PlainStatic as Static, plain

SCROLLS = {"up": "scroll_up", "down": "scroll_down", "page_up": "scroll_page_up", "page_down": "scroll_page_down",
           "home": "scroll_home", "end": "scroll_end"}


class ConfirmScreen(ModalScreen[bool]):
    """Ask once; ``y`` confirms, ``n`` / Escape cancels."""

    CSS_PATH = Path(__file__).resolve().parent.parent / "confirm.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
        Binding("c", "copy_text", "Copy", id="confirm.copy"),
        Binding("s", "save_text", "Save", id="confirm.save"),
        Binding("up", "scroll_body('up')", "Scroll up", show=False, id="confirm.up"),
        Binding("down", "scroll_body('down')", "Scroll down", show=False, id="confirm.down"),
        Binding("pageup", "scroll_body('page_up')", "Page up", show=False, id="confirm.page-up"),
        Binding("pagedown", "scroll_body('page_down')", "Page down", show=False, id="confirm.page-down"),
        Binding("home", "scroll_body('home')", "Top", show=False, id="confirm.top"),
        Binding("end", "scroll_body('end')", "Bottom", show=False, id="confirm.bottom"),
    ]

    def __init__(self, title: str, body: RenderableType, *, confirm_label: str = "Confirm",
                 dangerous: bool = True, plain: str | None = None, save_as: str = "dialog") -> None:
        super().__init__(classes="-dangerous" if dangerous else "")
        self.title_text, self.body, self.confirm_label = title, body, confirm_label
        self.plain, self.save_as = plain, save_as

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            with VerticalScroll(id="confirm-body"):
                yield Static(self.body, id="confirm-text")
            with Horizontal(id="confirm-buttons"):
                yield Label("", id="confirm-more")
                yield Button("Cancel (n)", id="confirm-cancel")
                yield Button(plain(f"{self.confirm_label} (y)"), id="confirm-ok",
                             variant="error" if self.has_class("-dangerous") else "primary")

    def on_mount(self) -> None:
        self.query_one("#confirm-dialog").border_title = Text(visible(self.title_text))  # names from hosts: no markup
        self.query_one("#confirm-cancel", Button).focus()
        body = self.query_one("#confirm-body", VerticalScroll)
        self.watch(body, "scroll_y", lambda _: self.show_more(), init=False)
        self.call_after_refresh(self.show_more)

    def on_resize(self) -> None:
        self.call_after_refresh(self.show_more)

    @property
    def more_below(self) -> bool:
        body = self.query_one("#confirm-body", VerticalScroll)
        return body.max_scroll_y > 0 and body.scroll_y < body.max_scroll_y

    def show_more(self) -> None:
        """The line beside the buttons: whether the body goes on below, and the copy and save keys."""
        if not self.is_mounted:
            return
        text = Text.assemble(("▼ more below: ↓ PgDn End", "bold") if self.more_below else "")
        if self.plain is not None:
            text.append(("\n" if text else "") + "c copy · s save the plan", "dim")
        self.query_one("#confirm-more", Label).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.plain is not None if action in ("copy_text", "save_text") else True

    def action_scroll_body(self, how: str) -> None:
        getattr(self.query_one("#confirm-body", VerticalScroll), SCROLLS[how])(animate=False)

    def action_copy_text(self) -> None:
        from mtptui.ui.clipboard import SENT, copy_note

        if self.plain is None:
            return
        self.app.copy_to_clipboard(self.plain)
        note = copy_note()
        self.notify(f"The whole text ({len(self.plain.splitlines())} lines): {note}. s saves it to a file.",
                    title="copy", severity="information" if note.startswith(SENT) else "warning", timeout=8)

    def action_save_text(self) -> None:
        from mtptui.config.paths import state_home

        if self.plain is None:
            return
        folder = state_home() / "plans"
        path = folder / f"{self.save_as}-{time.strftime('%Y%m%dT%H%M%S')}.txt"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(self.plain + "\n", encoding="utf-8")
        except OSError as exc:
            self.notify(f"Not saved: {path}: {exc.strerror or exc}.", title="save", severity="error")
            return
        self.notify(f"Saved to {path}", title="save", timeout=10)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-ok")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
