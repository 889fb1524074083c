"""The footer of every screen: below the -wide size class `? Help` comes first (docked left), so a narrow
terminal never cuts it off; on a wide one every key fits in its usual order.

Keys that do not fit are cut at the right edge as before; the help screen lists every one of them. Below
``COMPACT_BELOW`` columns the footer drops the padding between keys, so more of them fit.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST_ACTIONS = frozenset({"help"})
COMPACT_BELOW = 120


class KeyFooter(Footer):
    """A Footer whose Help key has the class -first (app.tcss docks it left below -wide)."""

    def compose(self):
        for widget in super().compose():  # passed through as they come, so binding groups compose as before
            if isinstance(widget, FooterKey) and widget.action in FIRST_ACTIONS:
                widget.add_class("-first")
            yield widget

    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < COMPACT_BELOW
