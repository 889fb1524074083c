"""The bench form: prompt set, concurrency, requests, max tokens, each checked as you type, and Start.

A bad value is said in one line under its field (``concurrency: between 1 and 256``); ``settings()`` returns
None while any field is bad, so a run never starts from a half-valid form.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input

from mtptui.ui.bench_state import (DEFAULT_CONCURRENCY, DEFAULT_MAX_TOKENS, DEFAULT_PROMPTS, DEFAULT_REQUESTS,
                                   LABELS, BenchSettings, parse_count)
from mtptui.ui.plain import (PlainButton as Button, PlainLabel as Label, PlainSelect as Select, PlainStatic as Static,
                             plain)

FIELDS = (("concurrency", DEFAULT_CONCURRENCY), ("requests", DEFAULT_REQUESTS), ("max_tokens", DEFAULT_MAX_TOKENS))


class BenchForm(Vertical):
    """The workload of the next run; ``prompt_sets`` maps set name to its description."""

    def __init__(self, prompt_sets: dict[str, str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prompt_sets = prompt_sets or {DEFAULT_PROMPTS: ""}

    def compose(self) -> ComposeResult:
        names = sorted(self.prompt_sets)
        default = DEFAULT_PROMPTS if DEFAULT_PROMPTS in names else names[0]
        with Horizontal(classes="bench-row"):
            yield Label("prompt set", classes="bench-label")
            yield Select([(name, name) for name in names], value=default, allow_blank=False, compact=True,
                         id="bench-prompts")
        yield Static(self.prompt_sets.get(default, ""), id="bench-prompts-about", classes="bench-about")
        for name, value in FIELDS:
            with Horizontal(classes="bench-row"):
                yield Label(LABELS[name], classes="bench-label")
                yield Input(str(value), compact=True, id=f"bench-{name}")
            yield Label("", id=f"bench-{name}-error", classes="bench-error")
        yield Button("Start", id="bench-start", variant="primary")

    @on(Select.Changed, "#bench-prompts")
    def _prompts_changed(self, event: Select.Changed) -> None:
        self.query_one("#bench-prompts-about", Static).update(self.prompt_sets.get(str(event.value), ""))

    @on(Input.Changed)
    def _check(self, event: Input.Changed) -> None:
        name = (event.input.id or "").removeprefix("bench-")
        if name in dict(FIELDS):
            self.check(name)

    def check(self, name: str) -> int | None:
        """Parse one field and show (or clear) its inline message."""
        value, error = parse_count(name, self.query_one(f"#bench-{name}", Input).value)
        self.query_one(f"#bench-{name}-error", Label).update(error or "")
        self.query_one(f"#bench-{name}", Input).set_class(error is not None, "-invalid")
        return value

    def settings(self) -> BenchSettings | None:
        """The form's workload, or None (with the messages shown) while a field is bad."""
        values = {name: self.check(name) for name, _ in FIELDS}
        if any(value is None for value in values.values()):
            return None
        return BenchSettings(str(self.query_one("#bench-prompts", Select).value), **values)  # type: ignore[arg-type]

    def focus_first(self) -> None:
        """The first field that takes text (the concurrency), so the next run's workload can be typed at once."""
        self.query(Input).first().focus()

    def set_running(self, running: bool) -> None:
        """The button says so; it stays focusable, so the screen's keys keep working while a run goes on."""
        self.query_one("#bench-start", Button).label = plain("Running…" if running else "Start")
