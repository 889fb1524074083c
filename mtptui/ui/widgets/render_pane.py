"""A pane that shows a Rich renderable it is handed, repainted without a layout pass.

``Static.update`` asks for a new layout of the whole screen; the dashboard's panes have sizes fixed by CSS,
so a plain refresh is enough and keeps the idle and streaming CPU low.
"""

from __future__ import annotations

from rich.console import RenderableType
from textual.widget import Widget

from mtptui.ui.plain import plain


class RenderPane(Widget):
    """Renders ``self.renderable``; ``set`` replaces it and repaints only this widget."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.renderable: RenderableType = ""

    def set(self, renderable: RenderableType) -> None:
        """A str is shown as text (Textual would read a rendered str as markup); Text and tables as they are."""
        self.renderable = plain(renderable) if isinstance(renderable, str) else renderable
        self.refresh()

    def render(self) -> RenderableType:
        return self.renderable
