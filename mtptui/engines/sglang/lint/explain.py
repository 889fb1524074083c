"""What a diff row means, in words: SGLang's help for the flag, what argparse accepts, and what each side gets.

Used by the diff screen's Enter; plain text in (label, text) pairs so any front end can lay it out.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.engines.sglang.flags.diff import DiffRow, EnvRow
from mtptui.engines.sglang.lint.effects import effect_line
from mtptui.engines.sglang.flags.help_text import flag_help
from mtptui.engines.sglang.flags.impact import GROUP_NAMES, env_group, flag_group
from mtptui.engines.sglang.flags.table import load_table, renamed, versions

AUTO = ("“(auto)” is a value SGLang works out itself at startup when the flag is left unset (from the model, "
        "the GPU memory or the other flags); “unset (default X)” is argparse's default, used as is.")
ENV = ("An environment variable of the server process: SGLang reads it at startup, so it changes only with a "
       "restart (set it in the unit's Environment= or the profile's [env] table).")


@dataclass(frozen=True)
class Explanation:
    title: str
    parts: tuple[tuple[str, str], ...]  # (label, text), in reading order


def explain_flag(row: DiffRow, sides: tuple[str, ...], version: str) -> Explanation:
    """The explanation of one flag row of a diff whose first side runs SGLang ``version``."""
    parts = [("group", GROUP_NAMES[flag_group(row.flag)])]
    effect = effect_line(row.flag, row.resolved, sides)
    if effect is not None:
        parts.append(("what it does", effect))
    helped = flag_help(row.flag, version)
    if helped is not None:
        text, source = helped
        parts.append((f"SGLang {source} says", text))
    else:
        parts.append(("SGLang says", f"nothing: {row.flag} has no help text in the releases mtptui knows"))
    parts += _argparse(row.flag, version)
    parts += [(label, _side(written, resolved)) for label, written, resolved in zip(sides, row.values, row.resolved)]
    if any("auto" in value or value.startswith("unset (default") for value in row.resolved):
        parts.append(("auto and defaults", AUTO))
    return Explanation(row.flag, tuple(parts))


def explain_env(row: EnvRow, sides: tuple[str, ...]) -> Explanation:
    parts = [("group", GROUP_NAMES[env_group(row.var)]), ("what it is", ENV)]
    parts += [(label, value if value is not None else "unset") for label, value in zip(sides, row.values)]
    return Explanation(row.var, tuple(parts))


def _argparse(flag: str, version: str) -> list[tuple[str, str]]:
    """Type, default, choices, other spellings and renames of the flag in ``version``'s table."""
    spec = load_table(version).get(flag)
    if spec is None:
        return [("argparse", f"SGLang {version} has no {flag}")]
    kind = "a switch (no value)" if not spec.takes_value else f"takes {spec.type or 'a value'}"
    facts = [kind, f"default {spec.default!r}" if spec.default not in (None, []) else "no default"]
    if spec.choices:
        facts.append("one of " + ", ".join(map(str, spec.choices)))
    if spec.aliases:
        facts.append("also spelled " + ", ".join(spec.aliases))
    parts = [(f"argparse ({version})", "; ".join(facts))]
    if spec.message:
        parts.append(("deprecated", spec.message))
    for release in versions():
        new = renamed(release).get(flag)
        if new:
            parts.append(("renamed", f"{flag} is {new} from SGLang {release} on"))
    return parts


def _side(written: str | None, resolved: str) -> str:
    if written is None:
        return f"not written; SGLang uses {_used(resolved)}"
    return f"written {written}" + ("" if resolved == written else f"; SGLang uses {_used(resolved)}")


def _used(resolved: str) -> str:
    """What SGLang uses, in words: ``unset (default 0.9)`` is its default 0.9, a bare ``unset`` nothing."""
    if resolved.startswith("unset (default ") and resolved.endswith(")"):
        default = resolved.removeprefix("unset (default ")[:-1]
        return f"its default {default}" if default != "None" else "nothing (the option stays off)"
    if resolved == "unset":
        return "nothing (the option stays off)"
    return resolved
