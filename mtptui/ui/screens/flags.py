"""The flags screen (f): a launch profile as a form, the host engine's lint inline as you type (SGLang's, or
vLLM's flag model on a vLLM host: mtptui.engines.registry.flag_form), the command previewed.

Opens on the running launch (else the known-good profile, else the one asked for). Named fields hold the
mission's flags; env vars and any other flag are free rows, resolved through the engine's parser. ctrl+s saves
the form as a profile, ctrl+g as the host's known-good profile (see mtptui.ops.profile_save for where);
saving with lint errors asks first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from mtptui.engines.registry import engine as engine_of, flag_form, launches
from mtptui.errors import UserError
from mtptui.ops.flag_form import FormField, FormValues, choices, fields, form_from_flagset, lint_form, resolve_row
from mtptui.secrets import is_secret_name
from mtptui.text import visible
from mtptui.ui import messages
from mtptui.ui.restart_text import findings_text
from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.widgets.key_footer import KeyFooter
from mtptui.ui.plain import PlainLabel as Label, PlainSelect as Select, PlainStatic as Static, plain

if TYPE_CHECKING:
    from mtptui.engines.finding import Finding
    from mtptui.ui.context import HostApp

LINT_DELAY_S = 0.3


def field_id(flag: str) -> str:
    return "f-" + flag.lstrip("-")


class FlagsScreen(Screen[None]):
    """The form; every change re-lints after a short pause. While it is up, a printable key is text: it never
    reaches a binding of the app (``b`` would open the bench, ``t`` switch the theme, ``q`` quit), whichever
    widget has the focus (``check_consume_key``); the form's own keys are ctrl+ keys and Escape."""

    CSS_PATH = Path(__file__).resolve().parent.parent / "flags.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back", id="flags.back"),
        Binding("ctrl+s", "save(False)", "Save profile", id="flags.save"),
        Binding("ctrl+g", "save(True)", "Save as known-good", id="flags.save-known-good"),
        Binding("ctrl+n", "add_row('extra')", "Add flag row", id="flags.add-flag"),
        Binding("ctrl+r", "add_row('env')", "Add env row", id="flags.add-env"),
    ]

    def __init__(self, app: "HostApp", profile: str | None = None) -> None:
        super().__init__()
        self.context = app.context
        host = self.context.host
        self.engine = host.engine if host else None  # the host's engine judges: its flag model, its lint
        self.engine_label = flag_form(self.engine).label
        self.fields = fields(self.engine)
        self.version = launches(self.engine).version(host) if host else engine_of(None).default_version
        self.source, self.values = self._initial(app, profile)
        self._timer: Timer | None = None
        self.findings: list[Finding] = []
        self.opened_with: FormValues | None = None  # the form as it opened: Escape asks when it was edited

    def _initial(self, app: "HostApp", profile: str | None) -> tuple[str, FormValues]:
        host = self.context.host
        status = app.live.host
        if profile is None and status is not None and status.launch is not None:
            return f"the running launch ({status.launch_source})", form_from_flagset(status.launch, self.engine)
        name = profile or (host.default_profile() if host else None)
        if name is None or host is None:  # a profile is a host's
            return "an empty form", FormValues()
        saved = host.profile(name)
        try:
            values = form_from_flagset(launches(self.engine).profile(saved, self.version), self.engine)
        except UserError:  # the engine refuses the profile: its rows as written, and the lint says why
            values = FormValues(model_path=saved.model_path, extra=[(f"--{key}", _text(value))
                                                                    for key, value in saved.flags.items()],
                                env=sorted(saved.env.items()))
        values.python = saved.python
        return f"profile {name}", values

    @property
    def default_name(self) -> str:
        return self.source.removeprefix("profile ") if self.source.startswith("profile ") else "edited"

    def compose(self) -> ComposeResult:
        head = visible(f"· editing {self.source} · {self.engine_label} {self.version}")
        yield Static(Text.assemble(("flags ", "bold"), head), id="flags-head")
        with Horizontal(id="flags-main"):
            with VerticalScroll(id="flags-form"):
                yield from self._row("model path", Input(self.values.model_path, id="f-model-path"))
                for form_field in self.fields:
                    yield from self._row(form_field.label, self._field_widget(form_field))
                yield Label("env vars (KEY = value) · ctrl+r adds a row", classes="flags-section")
                for key, value in self.values.env or [("", "")]:
                    yield self._pair("env", key, value)
                yield Label("other flags (name = value; aliases and prefixes resolve) · ctrl+n adds a row",
                            classes="flags-section")
                for name, value in self.values.extra or [("", "")]:
                    yield self._pair("extra", name, value)
            with Vertical(id="flags-side"):
                yield Static(id="flags-findings")
                yield Static(id="flags-command")
        with Horizontal(id="flags-save"):
            yield Label("save as profile")
            yield Input(self.default_name, id="flags-name")
            yield Label("ctrl+s save · ctrl+g save as known-good", classes="flags-hint")
        yield KeyFooter()

    @staticmethod
    def _row(label: str, widget: Widget) -> ComposeResult:
        with Horizontal(classes="flags-row"):
            yield Label(label, classes="flags-label")
            yield widget

    def _field_widget(self, form_field: FormField) -> Input | Select:
        value = self.values.fields.get(form_field.flag, "")
        if not form_field.choice:
            return Input(value, id=field_id(form_field.flag), placeholder=f"unset ({self.engine_label}'s default)",
                         password=is_secret_name(form_field.flag))
        options = list(choices(form_field.flag, self.version, self.engine))
        if value and value not in options:
            options.append(value)
        return Select([(option, option) for option in options], value=value or Select.NULL,
                      prompt=f"unset ({self.engine_label}'s default)", id=field_id(form_field.flag))

    @staticmethod
    def _pair(kind: str, name: str, value: str) -> Horizontal:
        resolved = Label("", classes="flags-resolved")
        return Horizontal(Input(name, classes="pair-name", placeholder="KEY" if kind == "env" else "--flag"),
                          Input(value, classes="pair-value", placeholder="value", password=is_secret_name(name)),
                          resolved,
                          classes=f"flags-pair {kind}-row")

    def on_mount(self) -> None:
        self.query_one("#flags-findings").border_title = plain(f"lint ({self.engine_label}'s rules)")
        self.query_one("#flags-command").border_title = "command line"
        for field_input in self.query(Input):
            field_input.select_on_focus = False  # Tab into a path puts the cursor at its end, not a selection
        self.query_one("#f-model-path", Input).focus()
        self.opened_with = self.collect()
        self.relint()

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """Printable keys are the form's text: the app's bindings never see them while the form is up."""
        return character is not None and character.isprintable()

    def action_back(self) -> None:
        """Back to the dashboard; with edits, only after the operator says to drop them."""
        if self.opened_with is None or self.collect() == self.opened_with:
            self.app.pop_screen()
            return
        body = Text("The form has edits that are not saved as a profile. ctrl+s saves them; discarding leaves "
                    "every profile as it was.")

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.pop_screen()

        self.app.push_screen(ConfirmScreen("Discard the edits?", body, confirm_label="Discard", dangerous=False),
                             answered)

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self, event: Input.Changed | Select.Changed) -> None:
        if isinstance(event, Input.Changed) and event.input.id == "flags-name":
            return
        if isinstance(event, Input.Changed) and event.input.has_class("pair-name"):
            _hide_if_secret(event.input)
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(LINT_DELAY_S, self.relint)

    def collect(self) -> FormValues:
        """The form's current values."""
        values = FormValues(model_path=self.query_one("#f-model-path", Input).value, python=self.values.python)
        for form_field in self.fields:
            widget = self.query_one(f"#{field_id(form_field.flag)}")
            value = widget.value if isinstance(widget, (Input, Select)) else None  # _field_widget made it
            values.fields[form_field.flag] = "" if value in (None, Select.NULL) else str(value)
        for kind in ("env", "extra"):
            rows = [(row.query_one(".pair-name", Input).value, row.query_one(".pair-value", Input).value)
                    for row in self.query(f".{kind}-row")]
            setattr(values, kind, rows)
        return values

    def relint(self) -> None:
        self._timer = None
        values = self.collect()
        flagset, self.findings = lint_form(values, self.version, self.engine)
        self._show_rows()
        findings = findings_text(self.findings) if self.findings else Text(f"no findings: {self.engine_label} would "
                                                                           "accept these flags", "green")
        self.query_one("#flags-findings", Static).update(findings)
        self.set_class(any(f.severity == "error" for f in self.findings), "-errors")
        command = Text("(cannot be rendered: see the lint)", "red")
        if flagset is not None:
            from mtptui.secrets import mask_flagset

            command = Text(visible(flag_form(self.engine).command(mask_flagset(flagset))), "cyan")
        self.query_one("#flags-command", Static).update(command)

    def _show_rows(self) -> None:
        for row in self.query(".extra-row"):
            name = row.query_one(".pair-name", Input).value
            canonical = resolve_row(name, self.version, self.engine) if name.strip() else None
            missing = f"✗ {self.engine_label} has no such option"
            text = "" if not name.strip() else f"→ {canonical}" if canonical else missing
            row.query_one(".flags-resolved", Label).update(Text(text, "green" if canonical else "red"))

    def action_add_row(self, kind: str) -> None:
        rows = list(self.query(f".{kind}-row"))
        row = self._pair(kind, "", "")
        self.query_one("#flags-form").mount(row, after=rows[-1])
        self.call_after_refresh(lambda: row.query_one(".pair-name", Input).focus())

    def action_save(self, known_good: bool) -> None:
        if self._timer is not None:
            self.relint()
        name = self.query_one("#flags-name", Input).value.strip()
        if not name or not name.replace("-", "").replace("_", "").isalnum():
            self.notify("Name the profile (letters, digits, - and _).", severity="warning")
            return
        errors = [f for f in self.findings if f.severity == "error"]
        if not errors:
            self.save(name, known_good)
            return
        body = Text.assemble((f"Profile {name} has {len(errors)} lint error(s):\n", "bold"),
                             findings_text(errors))

        def answered(yes: bool | None) -> None:
            if yes:
                self.save(name, known_good)

        self.app.push_screen(ConfirmScreen(f"Save {name} with lint errors?", body, confirm_label="Save anyway"),
                             answered)

    def save(self, name: str, known_good: bool) -> None:
        from mtptui.ops.flag_form import form_profile
        from mtptui.ui.context import profile_store

        context = self.context
        if context.host is None:
            self.notify("Not saved: this dashboard has no host file to save a profile in.", severity="error")
            return
        try:
            profile = form_profile(self.collect(), self.version, note=f"saved from the flags form ({self.source})",
                                   engine=self.engine)
        except ValueError as exc:
            self.notify(f"Not saved: {exc}.", severity="error")
            return
        saved = profile_store(context).save(context.host, name, profile, known_good=known_good)
        self.opened_with = self.collect()  # saved: nothing to lose on Escape any more
        context.host, path, after = saved.host, saved.path, f"; {saved.note}" if saved.note else ""
        if context.session is not None:
            context.session.host = context.host
        what = "as the known-good profile " if known_good else ""
        self.notify(f"Saved profile {name} {what}to {path}{after}", title="flags", timeout=8)
        self.app.post_message(messages.ProfileSaved(name, str(path), known_good))


def _hide_if_secret(name_input: Input) -> None:
    """A pair whose name reads as a secret (an API key, a token) shows its value as dots while it is edited."""
    parent = name_input.parent
    if parent is not None:
        for value_input in parent.query(".pair-value").results(Input):
            value_input.password = is_secret_name(name_input.value)


def _text(value: object) -> str:
    """A profile's flag value as a row's text: a list as its words, true as no value."""
    if value is True:
        return ""
    return " ".join(map(str, value)) if isinstance(value, list) else str(value).lower() if isinstance(value, bool) \
        else str(value)
