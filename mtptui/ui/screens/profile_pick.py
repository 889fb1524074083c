"""Pick a launch profile (r): the host's own engine's profiles with their notes, the known-good one marked."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList

from mtptui.config import HostConfig
from mtptui.text import visible
from mtptui.ui.plain import plain_option as Option


class ProfilePickScreen(ModalScreen[str | None]):
    """Dismisses with the chosen profile's name, or None on Escape."""

    CSS_PATH = Path(__file__).resolve().parent.parent / "confirm.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="pick.cancel")]

    def __init__(self, host: HostConfig, title: str = "Restart with which profile?") -> None:
        super().__init__()
        self.host, self.title_text = host, title

    def compose(self) -> ComposeResult:
        options = []
        for name, profile in sorted(self.host.own_profiles().items()):
            label = Text.assemble((visible(name), "bold"),
                                  (" ★ known-good" if name == self.host.known_good else "", "green"))
            if profile.note:
                label.append(f"\n  {visible(profile.note)}", "dim")
            options.append(Option(label, id=name))
        with Vertical(id="confirm-dialog"):
            yield OptionList(*options, id="pick-list")

    def on_mount(self) -> None:
        self.query_one("#confirm-dialog").border_title = Text(visible(self.title_text))
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
