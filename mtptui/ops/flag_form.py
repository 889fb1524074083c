"""The launch-flags form's model, without Textual: which flags get a field, and form values <-> profile.

    values = form_from_flagset(FlagSet.from_profile(profile, version))
    flagset, findings = lint_form(values, version)      # what SGLang would say, as you type
    profile = form_profile(values, version, note="...")  # a LaunchProfile to save

Named fields hold the mission's flags; any other flag is a free row (name, value) resolved through SGLang's
own parser (aliases, unique prefixes), so a typo is a finding, not a silent drop.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from mtptui.config.models import ENV_NAME, LaunchProfile
from mtptui.sglang.flags import Finding, FlagSet, lint_argv, load_table
from mtptui.sglang.flags.command import value_text
from mtptui.sglang.flags.resolve import match_option


@dataclass(frozen=True)
class FormField:
    """One named field: the flag (canonical in the version's table), its label, and whether it is a choice."""

    flag: str
    label: str
    choice: bool = False


FIELDS: tuple[FormField, ...] = (
    FormField("--speculative-algorithm", "speculative algorithm", choice=True),
    FormField("--speculative-num-steps", "steps"),
    FormField("--speculative-num-draft-tokens", "draft tokens"),
    FormField("--speculative-eagle-topk", "top-k"),
    FormField("--mem-fraction-static", "memory fraction"),
    FormField("--context-length", "context length"),
    FormField("--max-running-requests", "max running requests"),
    FormField("--mamba-full-memory-ratio", "mamba full memory ratio"),
    FormField("--mamba-scheduler-strategy", "mamba scheduler strategy", choice=True),
    FormField("--reasoning-parser", "reasoning parser", choice=True),
    FormField("--tool-call-parser", "tool-call parser", choice=True),
    FormField("--tp-size", "TP size"),
)


@dataclass
class FormValues:
    """What the form holds: text per named field ("" = unset), free flag rows, env rows, model and python."""

    model_path: str = ""
    python: str = "python3"
    fields: dict[str, str] = field(default_factory=dict)
    extra: list[tuple[str, str]] = field(default_factory=list)
    env: list[tuple[str, str]] = field(default_factory=list)


def choices(flag: str, version: str) -> tuple[str, ...]:
    """The values a choice field offers: the flag table's choices, or the speculative algorithms."""
    table = load_table(version)
    spec = table.get(flag)
    if flag == "--speculative-algorithm":
        return tuple(table.spec_builtins)
    return tuple(str(c) for c in spec.choices) if spec is not None and spec.choices else ()


def canonical(flag: str, version: str) -> str:
    spec = load_table(version).get(flag)
    return spec.name if spec is not None else flag


def form_from_flagset(fs: FlagSet) -> FormValues:
    """The form's values for a flag set: named fields filled, every other flag as a free row."""
    named = {canonical(f.flag, fs.version): f.flag for f in FIELDS}
    values = FormValues(model_path=fs.model_path or "", python=fs.python or "python3")
    for name, value in fs.flags.items():
        text = "" if value is True else " ".join(map(value_text, value)) if isinstance(value, list) else \
            value_text(value)
        if name in named:
            values.fields[named[name]] = text
        else:
            values.extra.append((name, text))
    values.env = sorted(fs.env.items())
    return values


def form_argv(values: FormValues) -> list[str]:
    """SGLang's arguments for the form (model path first, named fields, then the free rows as typed)."""
    argv = ["--model-path", values.model_path] if values.model_path.strip() else []
    for form_field in FIELDS:
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


def lint_form(values: FormValues, version: str) -> tuple[FlagSet | None, list[Finding]]:
    """The flag set the form gives (None when SGLang could not read it) and every finding, SGLang's order."""
    flagset, findings = lint_argv(form_argv(values), version, env=form_env(values))
    if flagset is not None:
        flagset.entry = f"{shlex.quote(values.python or 'python3')} -m sglang.launch_server"
    return flagset, env_findings(values) + findings


def resolve_row(name: str, version: str) -> str | None:
    """The canonical flag a free row's name stands for (alias or unique prefix), or None."""
    name = name.strip()
    if not name:
        return None
    spec = match_option(name if name.startswith("-") else "--" + name, load_table(version)).spec
    return spec.name if spec is not None else None


def form_profile(values: FormValues, version: str, note: str = "") -> LaunchProfile:
    """A LaunchProfile of the form; a ValueError when the form cannot be read as SGLang arguments."""
    flagset, _ = lint_form(values, version)
    if flagset is None:
        raise ValueError("the flags cannot be read as SGLang arguments")
    fields = flagset.to_profile_fields()
    fields["python"] = values.python or "python3"
    return LaunchProfile(note=note, **fields)
