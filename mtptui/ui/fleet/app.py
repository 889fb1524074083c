"""The app of `mtptui fleet`: the fleet screen, themes, help; it ends with the row to drill into (or None).

Drill-down hands over rather than stacking: the app exits with a ``Drill`` and the command runs that host's
dashboard app (the same as `mtptui HOST`, read-only), then a new fleet app on the same ``FleetView``. Each app
owns its own connections and workers, so the dashboard is exactly the one `mtptui HOST` opens.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from mtptui.fleet.hosts import HostEntry
from mtptui.fleet.settings import FleetSettings
from mtptui.fleet.view import Drill, FleetView
from mtptui.ui.fleet.help import FleetHelpScreen
from mtptui.ui.fleet.screen import Collector, FleetScreen
from mtptui.ui.keymap import load_keymap
from mtptui.ui.layout import HEIGHTS, WIDTHS
from mtptui.ui.plain import PlainNotify
from mtptui.ui.themes import install_themes

UI_DIR = Path(__file__).resolve().parents[1]


class FleetApp(PlainNotify, App[Drill | None]):  # every toast is text (mtptui.ui.plain)
    """One row per SGLang instance Prometheus scrapes; ``collector`` (an async callable giving a Snapshot)
    replaces Prometheus where a test wants fixed figures, ``clock`` the time shown."""

    TITLE = "mtptui fleet"
    CSS_PATH = [UI_DIR / "app.tcss", UI_DIR / "help.tcss", UI_DIR / "fleet" / "fleet.tcss"]
    HORIZONTAL_BREAKPOINTS, VERTICAL_BREAKPOINTS = WIDTHS, HEIGHTS
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit"),
        Binding("question_mark,f1", "help", "Help", id="help"),
        Binding("t", "next_theme", "Theme", id="theme"),
    ]

    def __init__(self, settings: FleetSettings, hosts: dict[str, HostEntry], view: FleetView | None = None, *,
                 theme: str | None = None, collector: Collector | None = None, clock: Callable[[], float] = time.time,
                 keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.settings, self.hosts = settings, hosts
        self.view = view or FleetView()
        self.collector, self.clock = collector, clock
        self._keymap = load_keymap() if keymap is None else keymap
        self.shipped_themes = install_themes(self, theme)

    def get_default_screen(self) -> Screen[None]:
        return FleetScreen(self.settings, self.hosts, self.view, self.collector, self.clock)

    def on_mount(self) -> None:
        if self._keymap:
            self.set_keymap(self._keymap)

    def key_list(self) -> list[tuple[str, str]]:
        """(keys, description) of mtptui's own bindings on the current screen (they have ids), as remapped."""
        seen: dict[str, list[str]] = {}
        for active in self.screen.active_bindings.values():
            if active.binding.id and active.binding.description:
                seen.setdefault(active.binding.description, []).append(self.get_key_display(active.binding))
        return [(" / ".join(dict.fromkeys(keys)), description) for description, keys in seen.items()]

    def action_help(self) -> None:
        if not isinstance(self.screen, FleetHelpScreen):
            self.push_screen(FleetHelpScreen(self.key_list()))

    def action_next_theme(self) -> None:
        names = sorted(self.shipped_themes)
        self.theme = names[(names.index(self.theme) + 1) % len(names)] if self.theme in names else names[0]

