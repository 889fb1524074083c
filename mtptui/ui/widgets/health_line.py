"""The health line: one line under the header, the first thing read; it only renders the verdict it is handed
(``mtptui.ops.health.verdict``), laid out for its width by ``mtptui.ops.health.text``."""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual import events

from mtptui.ops.health.verdict import Health
from mtptui.ops.health.text import health_line
from mtptui.text import visible
from mtptui.ui.widgets.render_pane import RenderPane

STYLES = {"ok": "bold green", "warn": "bold dark_orange", "bad": "bold red", "unknown": "yellow", "dim": "dim",
          "key": "bold reverse"}
ACTION_IDS = {"diff": "diff", "restore": "restore", "bench": "bench", "reconnect": "host.reconnect"}


class HealthLine(RenderPane):
    """Green only when every check holds; red names what is wrong and the keys that help."""

    health: Health | None = None

    def show_health(self, health: Health) -> None:
        self.health = health
        self.set_class(health.state == "bad", "-bad")
        self.set_class(health.state == "ok", "-ok")
        self.set_class(health.state == "warn", "-warn")
        self._render_line()

    def on_resize(self, event: events.Resize) -> None:
        self._render_line()

    def _render_line(self) -> None:
        if self.health is None:
            return
        width = max(self.size.width - 1, 10)  # one cell of padding on the left
        offered = tuple(action for action in self.health.actions if self._key(action))  # --readonly hides some
        segments = health_line(replace(self.health, actions=offered), width, lambda action: self._key(action) or "")
        # drift values come from the host's command line: shown, never obeyed (mtptui.text)
        self.set(Text.assemble(" ", *[(visible(text), STYLES.get(style, "")) for text, style in segments],
                               no_wrap=True, overflow="ellipsis"))

    def _key(self, action: str) -> str | None:
        """The key the operator presses for an action, as remapped; None when the action is not offered."""
        wanted = ACTION_IDS.get(action)
        for active in self.screen.active_bindings.values():
            if active.binding.id == wanted and active.enabled:
                return self.app.get_key_display(active.binding)
        return None
