"""Rules of SGLang's argument parsing and speculative-decoding hook (sglang-flags.md §2.2)."""

from __future__ import annotations

from typing import Callable, Iterator

from mtptui.engines.sglang.flags.effective import (
    ALGO, DRAFT, MRR, STEPS, TOPK, TYPE_ERROR, Effective, SpecError, resolve_spec,
)
from mtptui.engines.sglang.adaptive import CONFIG_FLAG as ADAPTIVE_CONFIG, FLAG as ADAPTIVE
from mtptui.engines.sglang.lint.finding import Finding
from mtptui.engines.sglang.flags.flagset import FlagSet

Rule = Callable[[FlagSet, "str | None"], Iterator[Finding]]


def deprecated_options(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    """SGLang's DeprecatedAction raises ValueError(help) while parsing; DeprecatedStoreTrueAction only warns."""
    for name in fs.flags:
        spec = fs.spec(name)
        if spec.action == "DeprecatedAction":
            yield Finding("error", name, f"{name} is no longer accepted by SGLang {fs.version}.",
                          f"remove {name} ({spec.message})", f"ValueError: {spec.message}")
        elif spec.action in ("DeprecatedStoreTrueAction", "DeprecatedStoreConstAction"):
            yield Finding("warning", name, f"{name} is deprecated in SGLang {fs.version}.", spec.message, spec.message)


def _steps_fix(fs: FlagSet) -> str:
    draft, topk = fs.get(DRAFT), fs.get(TOPK)
    if draft is not None and (topk in (None, 1)) and draft >= 2:
        return (f"add {STEPS} {draft - 1} {TOPK} 1 ({draft} draft tokens = steps + 1 with top-k 1), "
                f"or remove {DRAFT} and {TOPK} to let SGLang choose all three")
    return f"add {STEPS} N (and {TOPK}), or remove {DRAFT} and {TOPK} to let SGLang choose all three"


def speculative(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    """handle_speculative_decoding: NEXTN alias, unknown names, the bare assert, the topk TypeError, auto values."""
    spec = resolve_spec(fs, model_arch)
    if spec.algorithm is None:
        yield from _spec_without_algorithm(fs)
        return
    written = str(fs.get(ALGO))
    if written.upper() == "NEXTN":
        yield Finding("info", ALGO, "NEXTN is SGLang's name for MTP heads and is resolved to EAGLE.")
    if spec.error is not None:
        yield _spec_error(fs, spec.error)
        return
    yield from _spec_auto(fs, spec.values)
    for flag, warning in spec.warnings:
        yield _spec_warning(fs, flag, warning, spec.values)


def _spec_error(fs: FlagSet, error: SpecError) -> Finding:
    message = error.message
    if message.startswith("ValueError: Unknown"):
        known = ", ".join(fs.table.spec_builtins)
        return Finding("error", ALGO, f"{fs.get(ALGO)!s} is not a speculative algorithm SGLang {fs.version} knows.",
                       f"use one of {known}", message)
    if message == "AssertionError":
        return Finding("error", error.flag, f"{error.flag} without {STEPS} fails SGLang's argument check "
                       f"(a bare assert: steps, top-k and draft tokens are set together or not at all).",
                       _steps_fix(fs), message)
    if message == TYPE_ERROR:
        return Finding("error", TOPK, f"{STEPS} without {TOPK} makes SGLang crash comparing None with an int.",
                       f"add {TOPK} 1", message)
    return Finding("error", error.flag, error.why or message, error.fix, message)


def _spec_auto(fs: FlagSet, values: dict[str, Effective]) -> Iterator[Finding]:
    """All three parameters unset: say what SGLang's auto-choice picks for this model."""
    if any(fs.get(flag) is not None for flag in (STEPS, TOPK, DRAFT)):
        return
    if all(flag in values and values[flag].auto for flag in (STEPS, TOPK, DRAFT)):
        chosen = " ".join(f"{flag} {values[flag].value}" for flag in (STEPS, TOPK, DRAFT))
        yield Finding("info", STEPS, f"unset speculative parameters resolve to {chosen}.",
                      "set them explicitly to pin them")


def _spec_warning(fs: FlagSet, flag: str, warning: str, values: dict[str, Effective]) -> Finding:
    if flag in (ADAPTIVE, ADAPTIVE_CONFIG):
        return _adaptive_warning(fs, flag, warning, values)
    if flag == MRR:
        return Finding("info", MRR, f"{MRR} is unset, so SGLang uses {values[MRR].value} for speculative decoding.",
                       f"set {MRR} explicitly", warning)
    if flag == DRAFT and fs.get(DRAFT) is not None and fs.get(TOPK) == 1:
        return Finding("warning", DRAFT, f"with {TOPK} 1, SGLang replaces {DRAFT} {fs.get(DRAFT)} by "
                       f"{STEPS} + 1 = {values[DRAFT].value}.", f"set {DRAFT} {values[DRAFT].value} "
                       f"or change {STEPS}", warning)
    if flag != DRAFT:  # an algorithm's own override of what was written (DSPARK, UNO: steps and top-k are 1)
        return Finding("warning" if fs.get(flag) is not None else "info", flag, f"SGLang overrides {flag}: {warning}",
                       f"set {flag} to what SGLang uses", warning)
    return Finding("info", DRAFT, f"{DRAFT} resolves to {values[DRAFT].value}.", f"set {DRAFT} explicitly", warning)


def _adaptive_warning(fs: FlagSet, flag: str, warning: str, values: dict[str, Effective]) -> Finding:
    if flag == ADAPTIVE_CONFIG:
        return Finding("warning", flag, f"SGLang {fs.version}'s worker will refuse the adaptive config file when "
                       "it starts (after loading the model).", f"fix {fs.get(flag)}", warning)
    reason = str(values[ADAPTIVE].note or "").removeprefix("turned off: ")
    return Finding("warning", flag, f"SGLang turns adaptive speculation off here: {reason}.",
                   f"remove {ADAPTIVE}, or change what it names", warning)


def _spec_without_algorithm(fs: FlagSet) -> Iterator[Finding]:
    """Without an algorithm SGLang ignores these (it starts); draft tokens or top-k without steps would fail
    its assert as soon as an algorithm is set, which the warning says."""
    if fs.get(ADAPTIVE):
        yield Finding("warning", ADAPTIVE, f"{ADAPTIVE} has no effect without {ALGO} (SGLang turns it off).",
                      f"add {ALGO} NEXTN (an MTP head) or EAGLE, or remove {ADAPTIVE}")
    for flag in (STEPS, TOPK, DRAFT):
        if fs.get(flag) is None:
            continue
        if flag != STEPS and fs.get(STEPS) is None:
            yield Finding("warning", flag, f"{flag} has no effect without {ALGO}, and without {STEPS} it fails "
                          f"SGLang's argument check (AssertionError) as soon as an algorithm is set.",
                          f"add {ALGO} NEXTN and " + _steps_fix(fs).removeprefix("add "))
        else:
            yield Finding("warning", flag, f"{flag} has no effect without {ALGO}.",
                          f"add {ALGO} (e.g. NEXTN for an MTP head) or remove {flag}")
