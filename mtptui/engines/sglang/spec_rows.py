"""The speculation pane's settings rows for an SGLang launch: the speculative flags resolved the way SGLang
resolves them (``4 (auto)`` where SGLang derives a value the launch left out, ``NEXTN (runs as EAGLE)``)."""

from __future__ import annotations

from mtptui.engines.sglang.flags import FlagSet, resolve_effective

ALGO, STEPS, DRAFT, TOPK = ("--speculative-algorithm", "--speculative-num-steps", "--speculative-num-draft-tokens",
                            "--speculative-eagle-topk")


def launch_rows(launch: FlagSet, unknown: str) -> list[tuple[str, str]]:
    """(label, value) rows of a launch's speculative settings; ``unknown`` where a value is not resolved."""
    written = launch.get(ALGO)
    if written is None:
        return [("algorithm", "none (no speculative decoding)")]
    effective = resolve_effective(launch)
    algorithm = str(written)
    runs_as = effective.get(ALGO)
    if runs_as is not None and str(runs_as.value) != algorithm.upper():
        algorithm += f" (runs as {runs_as.value})"
    return [("algorithm", algorithm)] + [(label, str(effective[flag]) if flag in effective else unknown)
                                         for label, flag in (("steps", STEPS), ("draft tokens", DRAFT),
                                                             ("topk", TOPK))]
