"""Explain options a version's parser rejects: renamed, removed, added later, ambiguous, or unknown."""

from __future__ import annotations

import difflib
from itertools import islice

from mtptui.engines.sglang.flags.resolve import Match, match_option
from mtptui.engines.sglang.lint.rules import Finding
from mtptui.engines.sglang.flags.table import load_table, option_changes, renamed, versions


def option_words(argv: list[str]) -> list[int]:
    """Indices of the words argparse reads as long options."""
    return [i for i, word in enumerate(argv) if word.startswith("--") and word != "--"]


def value_words(argv: list[str], index: int) -> list[str]:
    """The words after an option that argparse would take as its values."""
    if "=" in argv[index]:
        return [argv[index].split("=", 1)[1]]
    values = []
    for word in islice(argv, index + 1, None):  # not argv[index + 1:]: a copy per option is quadratic
        if word.startswith("-") and not _negative_number(word):
            break
        values.append(word)
    return values


def _negative_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def rejected_options(argv: list[str], version: str) -> list[tuple[int, Match]]:
    """(index, match) for every option word that does not resolve to exactly one flag."""
    table = load_table(version)
    out = []
    for index in option_words(argv):
        match = match_option(argv[index], table)
        if match.spec is None:
            out.append((index, match))
    return out


def _where(name: str, version: str) -> str:
    """When an option came or went relative to ``version`` (the reference's option diffs), or ""."""
    age = {v: i for i, v in enumerate(reversed(versions()))}  # oldest first
    for kind, before, after in option_changes(name):
        if kind == "removed" and age[after] <= age[version]:
            return f"it was removed in SGLang {after}; {before} has it"
        if kind == "added" and age[after] > age[version]:
            return f"it was added in SGLang {after}"
    known = [v for v in versions() if name in load_table(v)]
    return f"it exists in SGLang {', '.join(known)}" if known else ""


def explain_option(word: str, match: Match, version: str, values: list[str], sglang_message: str) -> Finding:
    """One finding for a rejected option, naming the new spelling when it was renamed."""
    option = word.split("=", 1)[0]
    tail = (" " + " ".join(values)) if values else ""
    new = renamed(version).get(option)
    if new is not None:
        how = "is ambiguous" if match.ambiguous else "is not accepted"
        return Finding("error", option, f"{option} {how} in SGLang {version}: it was renamed {new}.",
                       f"use {new}{tail}", sglang_message)
    if match.ambiguous:
        return Finding("error", option, f"{option} is ambiguous in SGLang {version}: it could mean "
                       f"{', '.join(match.candidates)}.", f"write one of them in full{tail}", sglang_message)
    where = _where(option, version)
    if where:
        return Finding("error", option, f"{option} is not an option of SGLang {version} ({where}).",
                       f"remove {option}{tail} or target a release that has it", sglang_message)
    close = difflib.get_close_matches(option, list(load_table(version).by_name), n=1, cutoff=0.75)
    fix = f"remove {option}{tail}" + (f", or write {close[0]} if that is what you meant" if close else "")
    return Finding("error", option, f"{option} is not an SGLang option.", fix, sglang_message)
