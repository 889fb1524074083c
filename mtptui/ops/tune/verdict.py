"""Which arm is best, and the verdict in words.

Best: among the arms that ran, passed the canary and measured the first (lowest) concurrency, the highest
output tok/s there, unless a cheaper arm (fewer draft steps, then fewer draft tokens, then a narrower tree) is not
slower beyond noise: then the cheapest such arm. Noise is the bench's own comparison (mtptui.bench.compare:
Welch on per-request decode speeds without repeats, 5 % minimum effect), so "steps 4 adds nothing within noise"
keeps steps 3. The margin is given over the arm with the original launch's settings when the grid has it (what
ran before the tune), else over the cheapest arm that is cheaper than the best.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mtptui.ops.tune.arms import Arm

if TYPE_CHECKING:
    from mtptui.bench.compare import Comparison


@dataclass
class Verdict:
    best: Arm | None
    sentence: str
    notes: list[str] = field(default_factory=list)


def tok_s(arm: Arm, concurrency: int) -> float:
    result = arm.result_at(concurrency)
    return (result.output_tok_s or 0.0) if result else 0.0


def _compare(arm: Arm, other: Arm, concurrency: int) -> Comparison | None:
    """The bench's comparison of ``arm``'s run with ``other``'s at ``concurrency`` (same workload, same rig)."""
    from mtptui.bench.compare import compare

    now, before = arm.run_at(concurrency), other.run_at(concurrency)
    return compare([now], [before]) if now and before else None


def within_noise(arm: Arm, other: Arm, concurrency: int) -> bool:
    found = _compare(arm, other, concurrency)
    return found is not None and found.verdict == "no-change"


def candidates(arms: list[Arm], concurrency: int) -> list[Arm]:
    return [a for a in arms if a.status == "done" and a.canary != "fail" and tok_s(a, concurrency) > 0]


def pick_best(arms: list[Arm], concurrency: int) -> Arm | None:
    """The best arm at ``concurrency`` (see the module docstring); None when no arm qualifies."""
    pool = candidates(arms, concurrency)
    if not pool:
        return None
    top = max(pool, key=lambda a: tok_s(a, concurrency))
    return next(a for a in sorted(pool, key=lambda a: a.cost) if a is top or within_noise(a, top, concurrency))


def _reference(arms: list[Arm], best: Arm, original: dict[str, Any] | None) -> Arm | None:
    """The arm the margin is given over: the original launch's settings, else the cheapest cheaper arm."""
    pool = [a for a in arms if a is not best and a.status == "done" and a.result_at(best.results[0].concurrency)]
    same = [a for a in pool if original and all(original.get(k) == v for k, v in a.flags.items())]
    return same[0] if same else min([a for a in pool if a.cost < best.cost], key=lambda a: a.cost, default=None)


def _deeper(arms: list[Arm], best: Arm, concurrency: int) -> list[str]:
    words: list[str] = []
    for arm in candidates(arms, concurrency):
        if arm.cost <= best.cost:
            continue
        found = _compare(arm, best, concurrency)
        if found is not None and found.verdict == "no-change":
            words.append(f"{arm.label} adds nothing within noise")
        elif found is not None and found.change is not None:
            words.append(f"{arm.label} {found.change * 100:+.0f} %")
    return words


def other_notes(arms: list[Arm], best: Arm | None, concurrencies: list[int]) -> list[str]:
    notes = [f"{a.label} changed the greedy output (canary), so it is not a candidate" for a in arms
             if a.canary == "fail"]
    notes += [f"{a.label} {a.status}: {a.reason}" for a in arms if a.status in ("refused", "failed", "aborted")
              and a.reason]
    high = concurrencies[-1]
    pool = candidates(arms, high)
    if best is not None and len(concurrencies) > 1 and pool:
        most = max(pool, key=lambda a: tok_s(a, high))
        if most is not best and tok_s(most, high) > tok_s(best, high):
            notes.append(f"at c={high} {most.label} gives the most throughput "
                         f"({tok_s(most, high):.0f} vs {tok_s(best, high):.0f} tok/s)")
    return notes


def judge(arms: list[Arm], concurrencies: list[int], original: dict[str, Any] | None = None) -> Verdict:
    """The best arm and the verdict, e.g. "steps 3 / draft 4: 55 tok/s at c=1, +57 % over steps 1 / draft 2;
    steps 4 / draft 5 adds nothing within noise"."""
    first = concurrencies[0]
    best = pick_best(arms, first)
    notes = other_notes(arms, best, concurrencies)
    if best is None:
        return Verdict(None, "no arm qualifies: none ran to the end with its canary passing", notes)
    words = [f"{best.label}: {tok_s(best, first):.0f} tok/s at c={first}"]
    reference = _reference(arms, best, original)
    if reference is not None and tok_s(reference, first):
        words[0] += f", {(tok_s(best, first) / tok_s(reference, first) - 1) * 100:+.0f} % over {reference.label}"
    return Verdict(best, "; ".join(words + _deeper(arms, best, first)), notes)


def pareto(arms: list[Arm]) -> list[tuple[Arm, int, float, float]]:
    """The points (arm, concurrency, total output tok/s, per-request tok/s) no other point beats on both."""
    points = [(arm, r.concurrency, r.output_tok_s, r.request_tok_s) for arm in arms if arm.canary != "fail"
              for r in arm.results if r.output_tok_s and r.request_tok_s]
    return [p for p in points if not any(q[2] >= p[2] and q[3] >= p[3] and (q[2], q[3]) != (p[2], p[3])
                                         for q in points)]
