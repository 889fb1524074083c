"""The Textual app: themes, app-wide keys, the ops-screen registry; the dashboard is its default screen.

    app = MtpApp(feed, AppContext("demo", host=host, readonly=False))
    app.run()
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input

from mtptui.engines.registry import dashboard
from mtptui.ops.feed.items import Feed
from mtptui.ui.commands import DomainCommands
from mtptui.ui.context import AppContext, HostApp
from mtptui.ui.keymap import load_keymap
from mtptui.ui.layout import HEIGHTS, WIDTHS
from mtptui.ui.plain import PlainNotify
from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.screens import OPS_SCREENS
from mtptui.ui.screens import ops_actions  # noqa: F401  (registers diff, flags, restore, restart)
from mtptui.ui.screens import bench as _bench  # noqa: F401  (registers the bench screen)
from mtptui.ui.screens import tune as _tune  # noqa: F401  (registers the tune screen)
from mtptui.ui.screens.dashboard import DashboardScreen
from mtptui.ui.screens.help import HelpScreen
from mtptui.ui.live_host import Clock, LiveHost
from mtptui.ui.themes import install_themes


UI_DIR = Path(__file__).resolve().parent
READONLY_REFUSED = {"restore": "restore", "restart": "restart", "diff.apply": "restart", "tune": "tune"}  # id → action
READONLY_REASONS = {"restore": "restoring the known-good profile", "restart": "restarting with a chosen profile",
                    "diff.apply": "applying a profile (a restart)",
                    "tune": "the tune screen (restarts with each arm of a grid)"}
CLOSE_TIMEOUT_S = 5.0


class QuitScreen(ConfirmScreen):
    """The confirm dialog of a quit while something runs (a second `q` there does not stack another)."""


class MtpApp(PlainNotify, HostApp):  # every toast is text (mtptui.ui.plain)
    """mtptui's dashboard app."""

    TITLE = "mtptui"
    CSS_PATH = [UI_DIR / name for name in ("app.tcss", "dashboard.tcss", "help.tcss")]  # absolute: subclasses
    COMMANDS = HostApp.COMMANDS | {DomainCommands}
    HORIZONTAL_BREAKPOINTS, VERTICAL_BREAKPOINTS = WIDTHS, HEIGHTS  # size classes on every screen (ui/layout.py)
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit"),
        Binding("question_mark,f1", "help", "Help", id="help"),
        Binding("d", "ops('diff')", "Diff", id="diff"),
        Binding("f", "ops('flags')", "Flags", id="flags"),
        Binding("b", "ops('bench')", "Bench", id="bench"),
        Binding("R", "ops('restore')", "Restore", id="restore"),
        Binding("r", "ops('restart')", "Restart", id="restart"),
        Binding("t", "next_theme", "Theme", id="theme"),
        Binding("T", "ops('tune')", "Tune", id="tune", show=False),  # in the help and the palette
    ]

    def __init__(self, feed: Feed, context: AppContext, *, theme: str | None = None, clock: Clock = time.time,
                 cursor_blink: bool = True, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.feed = feed
        self.context = context
        self.live = LiveHost(clock, engine=dashboard(context.host.engine if context.host else None))
        self.cursor_blink = cursor_blink
        self.shipped_themes = install_themes(self, theme)
        self._keymap = load_keymap() if keymap is None else keymap

    def get_default_screen(self) -> Screen[Any]:
        return DashboardScreen(self.feed, self.live, self.context)

    def on_mount(self) -> None:
        if self._keymap:
            self.set_keymap(self._keymap)
        if self.context.host_keys is not None:
            self.context.host_keys.app = self

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Every text input blinks its cursor as the app says (tests turn blinking off for a steady picture)."""
        if isinstance(event.widget, Input):
            event.widget.cursor_blink = self.cursor_blink

    async def on_unmount(self) -> None:
        """Close the feed and with it the host session: what mtptui started on the host ends with it."""
        try:
            await asyncio.wait_for(self.feed.close(), CLOSE_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - quitting must not fail on a connection that is already gone
            self.log.warning(f"closing the feed: {exc!r}")

    def key_list(self) -> list[tuple[str, str, str]]:
        """(key, description, binding id for keys.toml) of every binding active on the current screen, as remapped."""
        seen: dict[str, list[str]] = {}
        ids: dict[str, str] = {}
        ours = sorted(self.screen.active_bindings.values(), key=lambda active: active.binding.id is None)
        for active in ours:  # mtptui's own keys (they have ids) first, then scrolling and focus
            binding = active.binding
            if not binding.description or binding.system and binding.action != "command_palette":
                continue
            seen.setdefault(binding.description, []).append(self.get_key_display(binding))
            ids.setdefault(binding.description, binding.id or "")
        return [(" / ".join(dict.fromkeys(keys)), description, ids[description])
                for description, keys in seen.items()]

    async def action_quit(self) -> None:
        """Quit, but ask first while a restart or a bench run is going on (neither is abandoned silently)."""
        busy = self.busy_with()
        if busy is None:
            self.exit()
        elif not isinstance(self.screen, QuitScreen):
            what, consequence = busy
            self.push_screen(QuitScreen(f"Quit while {what} is running?", consequence, confirm_label="Quit"),
                             lambda yes: self._quit_after_tune() if yes else None)

    def _quit_after_tune(self) -> None:
        """Quit; a tune that runs is aborted first and the app exits once the original launch is back."""
        tune = self.get_screen("tune", _tune.TuneScreen) if self.is_screen_installed("tune") else None
        if tune is not None and tune.run is not None and tune.run.busy:
            self.notify("Aborting the tune: restoring the original launch before quitting.", title="tune")
            tune.abort(then=self.exit)
        else:
            self.exit()

    def busy_with(self) -> tuple[str, str] | None:
        """(what runs, what quitting does to it) while a restart, a tune or a bench run is going on, else None."""
        from mtptui.ui.screens.dashboard import DashboardScreen

        dashboard = self.screen_stack[0] if self.screen_stack else None
        if isinstance(dashboard, DashboardScreen) and dashboard.restart_panel.running:
            return "a restart", ("The restart goes on on the host, but nothing will watch it any more: if the new "
                                 "server crashes or never becomes ready, mtptui will not roll it back.")
        tune = self.get_screen("tune", _tune.TuneScreen) if self.is_screen_installed("tune") else None
        if tune is not None and tune.running:
            return "a tune", "The tune stops, and the original launch is restarted and checked before mtptui quits."
        bench = self.get_screen("bench", _bench.BenchScreen) if self.is_screen_installed("bench") else None
        if bench is not None and getattr(bench, "live", None) is not None and bench.live.state == "running":
            return "a bench run", "The run stops here and is not recorded in the history."
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Under --readonly the keys of actions that change the host are not offered (footer, help, palette);
        while the host is not connected, neither are those that need it."""
        entry = OPS_SCREENS.get(str(parameters[0])) if action == "ops" and parameters else None
        if entry is not None and (self.readonly and entry.changes_host or entry.needs_host and self.offline):
            return False
        return True

    @property
    def offline(self) -> str | None:
        """Why the host is not connected (the log connection's reason), or None while it is."""
        return self.live.up.offline

    def on_key(self, event: events.Key) -> None:
        """A key hidden by --readonly or by a lost connection still answers when pressed: it says why."""
        if not self.readonly and not self.offline:
            return
        for namespace, bindings in self.screen._modal_binding_chain:  # the focused widget first, as Textual does
            for binding in bindings.key_to_bindings.get(event.key, ()):
                if self._refused(binding):
                    return
                if self._check_action_state(binding.action, namespace):
                    return  # an enabled binding nearer the focus took the key

    def _refused(self, binding: Binding) -> bool:
        """Say why a hidden key does nothing; True when it was such a key."""
        if self.readonly and binding.id in READONLY_REFUSED:
            self.refuse(READONLY_REFUSED[binding.id], f"Refused: {READONLY_REASONS[binding.id]} changes the "
                                                     f"host, and mtptui runs with --readonly.")
            return True
        entry = OPS_SCREENS.get(binding.id or "")
        if self.offline and entry is not None and entry.needs_host:
            host = self.context.host.name if self.context.host else self.context.host_label
            self.refuse(binding.id or "", f"Not connected to {host}: {self.offline}. C reconnects; "
                                          f"`mtptui check {host}` says what is wrong.")
            return True
        return False

    def action_help_quit(self) -> None:
        """ctrl+c: say which keys quit, in plain words (Textual's own toast is markup, and toasts here are not)."""
        keys = [self.get_key_display(active.binding) for active in self.active_bindings.values()
                if active.binding.action in ("quit", "app.quit")]
        keys = sorted(dict.fromkeys(keys), key=len)  # q before ^q
        self.notify(f"Press {' or '.join(keys) or 'q'} to quit mtptui.", title="Do you want to quit?")

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.key_list(), self.live.engine.label))

    def action_ops(self, name: str, profile: str | None = None) -> None:
        """Open an ops screen (diff, flags, bench, restore, restart), or say why not."""
        entry = OPS_SCREENS[name]
        if entry.changes_host and self.readonly:
            self.refuse(name, f"Refused: {entry.title} changes the host, and mtptui runs with --readonly.")
        elif entry.factory is None:
            self.notify(f"{entry.title[0].upper()}{entry.title[1:]} is not available in this version yet.",
                        title=name, severity="information")
        else:
            made = entry.factory(self, profile=profile) if profile else entry.factory(self)
            if isinstance(made, tuple):  # (screen, callback with its result)
                self.push_screen(*made)
            elif made is not None:  # None: the factory did it itself (the restart flow)
                self.push_screen(made)

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's Screenshot: saved into a folder that exists (mtptui.ui.screenshots), the full path told."""
        from mtptui.ui.screenshots import screenshot_dir

        directory = Path(path) if path else screenshot_dir()
        try:
            directory.mkdir(parents=True, exist_ok=True)
            saved = self.save_screenshot(filename, str(directory), time_format)
        except OSError as exc:
            self.notify(f"The screenshot was not saved: {directory}: {exc.strerror or exc}.", title="screenshot",
                        severity="error")
            return None
        self.notify(f"Saved to {saved}", title="screenshot", timeout=8)
        return saved

    def action_next_theme(self) -> None:
        names = sorted(self.shipped_themes)
        index = names.index(self.theme) + 1 if self.theme in names else 0
        self.action_use_theme(names[index % len(names)])

    def action_use_theme(self, name: str) -> None:
        self.theme = name
        self.notify(f"Theme: {name}", timeout=2)
