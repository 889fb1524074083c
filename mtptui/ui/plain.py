"""Text from a host, a server, a log or a file reaches Textual as text, never as markup: the one home of that rule.

Textual parses a plain ``str`` as content markup almost everywhere it takes one: ``Static``/``Label`` content,
``.update()``, ``border_title``/``border_subtitle``, ``DataTable`` cells and column labels, ``Option`` prompts,
button labels, and toasts raised from a widget or a screen (their ``notify`` passes ``markup=True``). One log
line with ``[/bold]`` in it (or ``[/INST]``, a chat-template tag in real exception text) ended the dashboard; a
model id with markup ended the bench screen; an error could render a clickable ``[link=...]`` or an
``[@click=...]`` action. So:

- ``plain(text)`` is how a string reaches any of those: a ``rich.text.Text`` (never parsed) of ``visible(text)``
  (terminal controls shown escaped, see mtptui.text);
- ``PlainNotify`` is the app's ``notify``: every toast, from the app, a screen or a widget, is shown as text;
- ``PlainStatic``, ``PlainLabel``, ``PlainButton``, ``PlainTable``, ``PlainSelect`` and ``plain_option`` are the
  widgets the UI uses instead of Textual's own: a str given to them is text (no other module imports Textual's).

tests/test_ui_plain_text.py reads every module under mtptui/ui and refuses the bypasses: an import of Textual's
Static, Label, Button, DataTable or Option, ``markup=`` other than False, ``from_markup``, and an f-string,
``visible(...)``, ``str(...)``, ``.join(...)`` or ``.format(...)`` handed straight to one of the markup sinks
above (titles included). Write ``plain(f"...")`` instead (Text objects built with
``Text.append`` are text already).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.content import Content
from textual.widgets import Button, DataTable, Label, Select, Static
from textual.widgets.option_list import Option

from mtptui.text import visible


def plain(text: object, style: str = "") -> Text:
    """``text`` as Textual shows it without reading markup, terminal controls escaped; a Text stays as it is."""
    if isinstance(text, Text):
        return text
    return Text(visible(str(text)), style=style)


class PlainNotify:
    """The ``notify`` of mtptui's apps: a toast's message and title are text, whoever raised it."""

    def notify(self, message: str, *, title: str = "", **options: Any) -> None:
        options["markup"] = False  # forced: Widget.notify and Screen.notify pass markup=True explicitly
        super().notify(visible(str(message)), title=visible(str(title)), **options)  # type: ignore[misc]


def _plain_all(values: Any) -> list[Any]:
    return [plain(value) if isinstance(value, str) else value for value in values]


class PlainStatic(Static):
    """``Static`` whose strings are text: content given at construction or to ``update``."""

    def __init__(self, content: Any = "", **options: Any) -> None:
        options["markup"] = False
        super().__init__(plain(content) if isinstance(content, str) else content, **options)

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        super().update(plain(content) if isinstance(content, str) else content, layout=layout)


class PlainLabel(Label):
    """``Label`` whose strings are text (not PlainStatic's subclass: Label's own CSS must stay first)."""

    def __init__(self, content: Any = "", **options: Any) -> None:
        options["markup"] = False
        super().__init__(plain(content) if isinstance(content, str) else content, **options)

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        super().update(plain(content) if isinstance(content, str) else content, layout=layout)


class PlainButton(Button):
    """``Button`` whose label is text."""

    def __init__(self, label: Any = None, *args: Any, **options: Any) -> None:
        super().__init__(Content(visible(label)) if isinstance(label, str) else label, *args, **options)


class PlainTable(DataTable[Any]):
    """``DataTable`` whose str cells and column labels are text (DataTable reads a str cell as markup)."""

    def add_column(self, label: Any, *args: Any, **options: Any) -> Any:
        return super().add_column(plain(label) if isinstance(label, str) else label, *args, **options)

    def add_row(self, *cells: Any, **options: Any) -> Any:
        return super().add_row(*_plain_all(cells), **options)

    def update_cell(self, row_key: Any, column_key: Any, value: Any, **options: Any) -> None:
        super().update_cell(row_key, column_key, plain(value) if isinstance(value, str) else value, **options)

    def update_cell_at(self, coordinate: Any, value: Any, **options: Any) -> None:
        super().update_cell_at(coordinate, plain(value) if isinstance(value, str) else value, **options)


def _plain_choices(choices: Any) -> list[tuple[Any, Any]]:
    return [(plain(prompt) if isinstance(prompt, str) else prompt, value) for prompt, value in choices]


class PlainSelect(Select[Any]):
    """``Select`` whose str option prompts are text (a prompt-set name from prompts.toml, a flag's value from the
    host file: Select parses a str prompt as markup when its list opens)."""

    def __init__(self, options: Any, **kwargs: Any) -> None:
        super().__init__(_plain_choices(options), **kwargs)

    def set_options(self, options: Any) -> Any:
        return super().set_options(_plain_choices(options))


def plain_option(prompt: Any, **options: Any) -> Option:
    """An ``OptionList`` option whose prompt is text."""
    return Option(plain(prompt) if isinstance(prompt, str) else prompt, **options)
