"""The launch-flags form's model, without Textual: which flags get a field, and form values <-> profile, in the
flag model of the host's engine (mtptui.engines.registry.flag_form; ``engine`` None is SGLang's).

    values = form_from_flagset(launch, engine)                # a launch of the engine (FlagSet, VllmFlagSet)
    flagset, findings = lint_form(values, version, engine)    # what the engine's lint says, as you type
    profile = form_profile(values, version, note="...", engine=engine)  # a LaunchProfile to save

Named fields hold the mission's flags; any other flag is a free row (name, value) resolved through the engine's
own option matching (aliases, unique prefixes), so a typo is a finding, not a silent drop.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from mtptui.config.models import ENV_NAME, LaunchProfile
from mtptui.engines.registry import flag_form
from mtptui.engines.finding import Finding


@dataclass(frozen=True)
class FormField:
    """One named field: the flag (canonical in the version's table), its label, and whether it is a choice."""

    flag: str
    label: str
    choice: bool = False


def fields(engine: str | None = None) -> tuple[FormField, ...]:
    """The named fields of the engine's form."""
    return tuple(FormField(flag, label, choice) for flag, label, choice in flag_form(engine).fields)


FIELDS: tuple[FormField, ...] = fields()  # SGLang's


@dataclass
class FormValues:
    """What the form holds: text per named field ("" = unset), free flag rows, env rows, model and python."""

    model_path: str = ""
    python: str = "python3"
    fields: dict[str, str] = field(default_factory=dict)
    extra: list[tuple[str, str]] = field(default_factory=list)
    env: list[tuple[str, str]] = field(default_factory=list)


def choices(flag: str, version: str, engine: str | None = None) -> tuple[str, ...]:
    """The values a choice field offers (the engine's flag table's choices; SGLang's speculative algorithms)."""
    return flag_form(engine).choices(flag, version)


def form_from_flagset(launch: Any, engine: str | None = None) -> FormValues:
    """The form's values for a launch: named fields filled, every other flag as a free row."""
    model = flag_form(engine)
    named = {model.resolve(f.flag, launch.version) or f.flag: f.flag for f in fields(engine)}  # a field may be
    # an alias (SGLang's --tp-size): the launch holds the canonical name
    values = FormValues(model_path=launch.model_path or "", python=launch.python or "python3")
    for name, text in model.pairs(launch):
        if name in named:
            values.fields[named[name]] = text
        else:
            values.extra.append((name, text))
    values.env = sorted(launch.env.items())
    return values


def form_argv(values: FormValues, engine: str | None = None) -> list[str]:
    """The engine's arguments for the form (model first, named fields, then the free rows as typed)."""
    model = flag_form(engine).model_flag
    argv = [model, values.model_path] if values.model_path.strip() else []
    for form_field in fields(engine):
        text = values.fields.get(form_field.flag, "").strip()
        if text:
            argv += [form_field.flag, text]
    for name, text in values.extra:
        name = name.strip()
        if name:
            name = name if name.startswith("-") else "--" + name
            argv += [name, *shlex.split(text)] if text.strip() else [name]
    return argv


def form_env(values: FormValues) -> dict[str, str]:
    return {key.strip(): value for key, value in values.env if key.strip()}


def env_findings(values: FormValues) -> list[Finding]:
    bad = [key for key, _ in values.env if key.strip() and not ENV_NAME.fullmatch(key.strip())]
    return [Finding("error", None, f"{key!r} is not an environment variable name.",
                    "use letters, digits and _, not starting with a digit") for key in bad]


def lint_form(values: FormValues, version: str, engine: str | None = None) -> tuple[Any | None, list[Finding]]:
    """The launch the form gives (None when the engine could not read it) and every finding, the lint's order."""
    launch, findings = flag_form(engine).lint(form_argv(values, engine), form_env(values),
                                              values.python or "python3", version)
    return launch, env_findings(values) + findings


def resolve_row(name: str, version: str, engine: str | None = None) -> str | None:
    """The canonical flag a free row's name stands for (alias or unique prefix), or None."""
    name = name.strip()
    if not name:
        return None
    return flag_form(engine).resolve(name if name.startswith("-") else "--" + name, version)


def form_profile(values: FormValues, version: str, note: str = "", engine: str | None = None) -> LaunchProfile:
    """A LaunchProfile of the form; a ValueError when the form cannot be read as the engine's arguments."""
    model = flag_form(engine)
    launch, _ = lint_form(values, version, engine)
    if launch is None:
        raise ValueError(f"the flags cannot be read as {model.label} arguments")
    profile_fields = model.profile_fields(launch)
    profile_fields["python"] = values.python or "python3"
    return LaunchProfile(note=note, **profile_fields)
