"""A comparison in the operator's words: "34.3 vs 53.9 tok/s, 36 % slower, outside the noise".

The statistics behind it (p value, test, runs) are a separate line the bench screen shows on demand.
"""

from __future__ import annotations

from typing import Any

from mtptui.bench.compare import ALPHA, Comparison

NOISE = {"regression": "outside the noise", "improvement": "outside the noise", "no-change": "within the noise",
         "inconclusive": "too few numbers to tell from noise"}


def percent(change: float) -> str:
    """``36 %`` from 0.36; a decimal below 10 %, where it matters."""
    value = abs(change) * 100
    return f"{value:.0f} %" if value >= 9.95 else f"{value:.1f} %"


def verdict_sentence(comparison: Comparison) -> str:
    """The verdict as a sentence; without a baseline, why there is none."""
    if comparison.verdict == "no-baseline" or comparison.now_tok_s is None or comparison.before_tok_s is None:
        return comparison.reason or "the first run of this workload here: nothing to compare with yet"
    head = f"{comparison.now_tok_s:.1f} vs {comparison.before_tok_s:.1f} tok/s"
    change = comparison.change or 0.0
    how = "the same speed" if abs(change) < 0.0005 else f"{percent(change)} {'slower' if change < 0 else 'faster'}"
    return f"{head}, {how}, {NOISE.get(comparison.verdict, comparison.verdict)}"


def statistics_line(comparison: Comparison) -> str:
    """The test behind the verdict, for the operator who asks."""
    if comparison.verdict == "no-baseline":
        return "no test: no baseline"
    p = "n/a" if comparison.p_value is None else f"{comparison.p_value:.2g}"
    return (f"p = {p} ({comparison.method}); {comparison.now_runs} run(s) now vs {comparison.before_runs} of the "
            f"baseline's configuration; a change counts when p < {ALPHA:g} and it is large enough; "
            f"verdict: {comparison.verdict.replace('-', ' ')}")


def flag_name(name: str, engine: str | None = None) -> str:
    """A recorded launch flag (its argparse dest, ``speculative_num_steps``) as written: ``--speculative-num-steps``;
    the server's version by its engine's display name (``engine``, a registry name; None: SGLang's)."""
    if name == "version":
        from mtptui.engines.registry import ENGINES, engine as engine_of

        return f"{engine_of(engine if engine in ENGINES else None).label} version"
    return name if name.startswith("-") else "--" + name.replace("_", "-")


def flag_value(value: Any) -> str:
    return "(unset)" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
