"""vLLM's flag model for the flags form (mtptui.ops.flag_form through mtptui.engines.registry.FORMS): which flags
get a named field, a free row's name resolved as vLLM's argparse reads it (dashes for underscores, a unique
prefix), the form's words judged by vLLM's offline lint (mtptui.engines.vllm.flags.lint), and the launch it
gives back as a profile's fields. The words stay as written: a profile saved from the form runs what was typed.
"""

from __future__ import annotations

import shlex
from typing import Any

from mtptui.config.models import ENV_NAME
from mtptui.engines.vllm.flags import argv as rewrite
from mtptui.engines.vllm.flags.launchset import MODEL, VllmFlagSet, from_words, lint_verdict
from mtptui.engines.entry import module_words
from mtptui.engines.vllm.flags.command import API_SERVER
from mtptui.engines.vllm.flags.table import load_table
from mtptui.errors import UserError
from mtptui.engines.vllm.flags.lint import Finding

FIELDS: tuple[tuple[str, str, bool], ...] = (
    ("--speculative-config", "speculative config (JSON)", False),
    ("--max-model-len", "context length", False),
    ("--max-num-seqs", "max sequences", False),
    ("--gpu-memory-utilization", "GPU memory utilization", False),
    ("--tensor-parallel-size", "TP size", False),
    ("--reasoning-parser", "reasoning parser", True),
    ("--tool-call-parser", "tool-call parser", True),
)


def choices(flag: str, version: str) -> tuple[str, ...]:
    option = load_table(version).by_option(flag)
    return tuple(str(c) for c in option.choices) if option is not None and option.choices else ()


def resolve(word: str, version: str) -> str | None:
    """The canonical long option ``word`` stands for in vLLM's table (exact, underscores, unique prefix)."""
    table = load_table(version)
    word = rewrite.normalise([word.split("=", 1)[0]])[0][0]
    option = table.by_option(word)
    if option is None:
        longs = [o for o in table.options for spelled in o.options if spelled.startswith(word)]
        option = longs[0] if len({o.dest for o in longs}) == 1 else None
    return option.name if option is not None and option.options else None


def pairs(launch: VllmFlagSet) -> list[tuple[str, str]]:
    """(canonical option, its value as typed: one word as is, several shell-quoted) of a launch, in its order; the
    model is the launch's own field."""
    out: list[tuple[str, str]] = []
    for group in launch.groups():
        name = resolve(group[0], launch.version) if group[0].startswith("-") else None
        if name is not None and name != MODEL:
            text = group[1] if len(group) == 2 else shlex.join(group[1:])  # one value as is (a field's text)
            out.append((name if not _negated(group[0], name) else group[0], text))
    return out


def _negated(word: str, name: str) -> bool:
    return word.startswith("--no-") and not name.startswith("--no-")


def lint(args: list[str], env: dict[str, str], python: str, version: str) -> tuple[VllmFlagSet | None, list[Any]]:
    """(the launch, or None when vLLM would refuse it; the findings), judged as `flags lint HOST` and a restart
    judge a vLLM profile: read by vLLM's argument parser and its --speculative-config fields (a refusal is the one
    error), then the launch's lint (launchset.lint_verdict; the model itself is the host's to judge)."""
    env = {key: value for key, value in env.items() if ENV_NAME.fullmatch(key)}  # the form names the others
    words = [*module_words(python, API_SERVER), *args]
    try:
        launch = from_words(words, version)
    except UserError as exc:
        return None, [Finding("error", None, str(exc), None, str(exc))]
    launch.env = env
    return launch, list(lint_verdict(launch).findings)


def command(launch: VllmFlagSet) -> str:
    head = [f"{name}={shlex.quote(value)}" for name, value in sorted(launch.env.items())] + [launch.entry]
    return " \\\n    ".join([" ".join(head), *(shlex.join(group) for group in launch.groups())])


def profile_fields(launch: VllmFlagSet) -> dict[str, Any]:
    """A LaunchProfile's fields: the model, each option by its long name without "--" (a number as a number, a
    negated switch as false), env, python."""
    table = load_table(launch.version)
    flags: dict[str, Any] = {}
    for group in launch.groups():
        name = resolve(group[0], launch.version) if group[0].startswith("-") else None
        if name is None or name == MODEL:
            continue
        values = group[1:]
        if not values:
            flags[name[2:]] = not _negated(group[0], name)
            continue
        option = table.by_option(name)
        kind = option.type if option is not None else None
        typed = [_number(word, kind) for word in values]
        flags[name[2:]] = typed[0] if len(typed) == 1 and (option is None or option.nargs not in ("+", "*")) \
            else typed
    return {"model_path": launch.model_path or "", "flags": flags, "env": dict(launch.env),
            "python": launch.python or "python3"}


def _number(word: str, kind: str | None) -> Any:
    """``word`` as the int or float its option takes (argparse's type), else as written."""
    try:
        return int(word) if kind in ("int", "human_readable_int_or_auto") else float(word) if kind == "float" \
            else word
    except ValueError:
        return word
