"""``--speculative-adaptive`` as SGLang's argument stage resolves it (mtptui.engines.sglang.adaptive has the facts).

0.5.12.post1 looks at it last, after the algorithm's handler: unsupported settings turn it off with a warning and
nothing is derived (the worker reads the config file later). 0.5.23 looks first: it turns it off the same way,
or reads the config file, takes top-k 1 and the middle candidate for what the launch leaves out, refuses steps
that are no candidate and sets draft tokens to steps + 1; the EAGLE handler then skips its auto-choice.

The config file is read where lint runs: the host's own check reads the host's file; offline, a file that is
not there leaves the candidates unknown (None), never an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from mtptui.engines.sglang.adaptive import (
    CONFIG_FLAG, FLAG, TIERED, AdaptiveConfigError, AdaptiveStart, Blockers, candidates_of, default_steps, read_config,
    start, tiers, unsupported_reason,
)
from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.flags.parallel import attention_dp
from mtptui.engines.sglang.flags.spec_values import DRAFT, STEPS, TOPK, Effective, SpecError, SpecResolution

DISABLED = "speculative_adaptive disabled: {}. Falling back to static speculative params."
NOT_CANDIDATE = ("ValueError: --speculative-num-steps={} is not in the adaptive config candidate_steps {}. "
                 "Pass one of those values.")


def wanted(fs: FlagSet) -> bool:
    return bool(fs.get(FLAG))


def local_config(fs: FlagSet) -> dict[str, Any] | None | Literal[False]:
    """The config file's object; None without a file; False when the file is not readable here."""
    path = fs.get(CONFIG_FLAG)
    if path is None:
        return None
    try:
        text = Path(str(path)).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return read_config(text, fs.version)


def blockers(fs: FlagSet, algorithm: str | None, topk: object) -> Blockers:
    dp = attention_dp(fs) > 1 if fs.version in TIERED else bool(fs.get("--enable-dp-attention"))
    return Blockers(algorithm, topk if isinstance(topk, int) else None, dp, bool(fs.get("--enable-multi-layer-eagle")),
                    bool(fs.get("--enable-two-batch-overlap")), bool(fs.get("--enable-pdmux")))


def _turned_off(fs: FlagSet, result: SpecResolution, topk: object) -> bool:
    """SGLang's unsupported check: a warning and the flag off when it fails."""
    reason = unsupported_reason(fs.version, blockers(fs, result.algorithm, topk))
    if reason is None:
        return False
    result.values[FLAG] = Effective(False, "auto", "turned off: " + reason)
    result.warnings.append((FLAG, DISABLED.format(reason)))
    return True


def before_handler(fs: FlagSet, result: SpecResolution) -> dict[str, Effective] | None:
    """0.5.23, before the algorithm's handler: the steps, top-k and draft tokens the handler takes as given (None
    values where the config file is not readable here); None when adaptive speculation is off."""
    if not wanted(fs) or fs.version not in TIERED or _turned_off(fs, result, fs.get(TOPK)):
        return None
    try:
        config = local_config(fs)
        slots = tiers(fs.version, config) if config is not False else None
    except AdaptiveConfigError as exc:
        result.error = SpecError(CONFIG_FLAG, str(exc), "SGLang refuses the adaptive config file.",
                                 f"fix the file {fs.get(CONFIG_FLAG)}")
        return None
    result.values[FLAG] = Effective(True)
    steps = fs.get(STEPS)
    if steps is None and slots is not None:
        steps = default_steps(slots)
    if slots is not None and steps not in candidates_of(slots):
        result.error = SpecError(STEPS, NOT_CANDIDATE.format(steps, list(candidates_of(slots))),
                                 "adaptive speculation starts from one of its candidate steps.",
                                 f"set {STEPS} to one of {', '.join(map(str, candidates_of(slots)))}")
        return None
    if slots is not None:
        result.adaptive = AdaptiveStart(slots, int(steps))
    return {STEPS: _given(fs, STEPS, steps), TOPK: _given(fs, TOPK, fs.get(TOPK, 1)),
            DRAFT: _given(fs, DRAFT, None if steps is None else int(steps) + 1)}


def _given(fs: FlagSet, flag: str, value: object) -> Effective:
    if value is None:
        return Effective(None, "auto", "from the adaptive config's candidate steps (file not readable here)")
    return Effective(value) if fs.get(flag) == value else Effective(value, "auto")


def after_handler(fs: FlagSet, result: SpecResolution) -> None:
    """0.5.12.post1, after the algorithm's handler: turned off, or on with the candidates the worker will use."""
    if not wanted(fs) or fs.version in TIERED or result.error is not None:
        return
    topk = result.values.get(TOPK)
    if _turned_off(fs, result, topk.value if topk is not None else None):
        return
    result.values[FLAG] = Effective(True)
    steps = result.values.get(STEPS)
    try:
        config = local_config(fs)
        if config is not False and steps is not None and isinstance(steps.value, int):
            result.adaptive = start(fs.version, config, steps.value)
    except AdaptiveConfigError as exc:  # the worker reads the file at startup: a crash after loading, not here
        result.warnings.append((CONFIG_FLAG, str(exc)))


def without_algorithm(fs: FlagSet) -> dict[str, Effective]:
    """The flag with no speculative algorithm: both releases turn it off (``speculative_algorithm=None``)."""
    if not wanted(fs):
        return {}
    return {FLAG: Effective(False, "auto", f"turned off: {unsupported_reason(fs.version, blockers(fs, None, None))}")}
