"""The footer of every screen: below the -wide size class `? Help` comes first (docked left), then the screen's
own keys, the mission's (diff, restore, bench), the app's others, and the log's last; a key that does not fit
whole is left out rather than cut, so on 80 and 100 columns the log keys go first and `d`, `R`, `b`, `?` stay.

On a wide terminal every key fits in its usual order. The help screen lists every key, shown or not. Below
``COMPACT_BELOW`` columns the footer drops the padding between keys, so more of them fit.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST_ACTIONS = frozenset({"help"})
MISSION_ACTIONS = ("help", "ops('diff')", "ops('restore')", "ops('bench')")  # the story: see, why, restore, prove
COMPACT_BELOW = 120


def rank(key: FooterKey, own: frozenset[str], last: frozenset[str]) -> int:
    """Where a key goes below -wide: help, the screen's ``own`` keys, the mission's, the others, the screen's
    ``last`` (the dashboard's log keys)."""
    if key.action in last:
        return len(MISSION_ACTIONS) + 3
    if key.action in MISSION_ACTIONS:
        return 0 if key.action == "help" else 1 + MISSION_ACTIONS.index(key.action)
    return 1 if key.action in own else len(MISSION_ACTIONS) + 2


class KeyFooter(Footer):
    """A Footer whose Help key has the class -first (app.tcss docks it left below -wide), ranked and fitted."""

    _wide: bool | None = None

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())  # composed as they come, so binding groups compose as before
        keys = [widget for widget in widgets if isinstance(widget, FooterKey)]
        for key in keys:
            if key.action in FIRST_ACTIONS:
                key.add_class("-first")
        if not self._is_wide() and len(keys) == len(widgets):  # every widget a key: they can be ranked
            own = frozenset(binding.action for bindings in self.screen._bindings.key_to_bindings.values()
                            for binding in bindings)
            last = frozenset(getattr(self.screen, "FOOTER_LAST", ()))
            keys.sort(key=lambda key: (key.has_class("-command-palette"), rank(key, own, last)))
            yield from keys
            return
        yield from widgets

    def _is_wide(self) -> bool:
        return self.is_attached and self.screen.has_class("-wide")

    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < COMPACT_BELOW
        if self._wide is not None and self._wide != self._is_wide():
            self.call_after_refresh(self.recompose)  # the order changes at the -wide boundary
        self._wide = self._is_wide()
        self.call_after_refresh(self.fit)

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self.fit)

    def fit(self) -> None:
        """Show the keys, in order, while each fits whole beside the docked ones; leave the rest out."""
        keys = list(self.query(FooterKey))
        docked = [key for key in keys if key.styles.dock != "none"]
        room = self.size.width - sum(width_of(key) for key in docked)
        for key in keys:
            if key in docked:
                continue
            room -= width_of(key)
            key.display = room >= 0


def width_of(key: FooterKey) -> int:
    """Cells the key takes: its text, border and margin (as laid out now, hidden or not)."""
    styles = key.styles
    return key.render().cell_len + styles.margin.left + styles.margin.right + styles.padding.left + \
        styles.padding.right + (1 if styles.border_left[0] else 0)
