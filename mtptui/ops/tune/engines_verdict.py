"""The answer of a tune whose arms are profiles (of one engine or several): one sentence that starts with what to
do, e.g. "Stay on SGLang steps 3 / draft 4: 53 tok/s at c=1, vLLM ngram 3 is 11 % slower; at c=4 they are
within noise".

Best, at the first concurrency: the fastest arm that ran, passed its canary (within its own engine: outputs of
two engines are never compared) and measured; the original's arm instead when it is within noise of it (staying
costs no switch), else the cheapest arm within noise (mtptui.ops.tune.verdict). Noise is the bench's own
comparison of the two runs, as in every tune verdict. Each other engine is named by its best arm there, with the
margin or "within noise", and a faster arm of the best's own engine that was passed over within noise is named
as adding nothing; at each higher concurrency the sentence says whether the lead holds, turns or is noise.
"""

from __future__ import annotations

from mtptui.engines.registry import engine as engine_of
from mtptui.ops.tune.arms import Arm
from mtptui.ops.tune.verdict import Verdict, candidates, other_notes, pick_best, tok_s, within_noise

NOT_COMPARABLE = "not comparable"


def best_at(arms: list[Arm], concurrency: int, original: str | None) -> Arm | None:
    """The best arm at ``concurrency``: the original's when it is within noise of the pick."""
    pick = pick_best(arms, concurrency)
    stay = next((a for a in candidates(arms, concurrency) if a.name == original), None)
    if pick is not None and stay is not None and stay is not pick and within_noise(stay, pick, concurrency):
        return stay
    return pick


def _versus(best: Arm, other: Arm, concurrency: int) -> str:
    if within_noise(other, best, concurrency):
        return f"{other.label} is within noise"
    ahead, behind = tok_s(best, concurrency), tok_s(other, concurrency)
    if behind > ahead:
        return f"{other.label} is {(behind / ahead - 1) * 100:.0f} % faster"
    return f"{other.label} is {(1 - behind / ahead) * 100:.0f} % slower"


def _faster_kin(arms: list[Arm], best: Arm, concurrency: int, named: list[Arm]) -> list[str]:
    """The faster arm of the best's own engine, when a cheaper one (or the original's) was kept within noise of it:
    the table shows it ahead, so the sentence says why it is not the answer."""
    kin = [a for a in candidates(arms, concurrency) if a.engine == best.engine]
    top = max(kin, key=lambda a: tok_s(a, concurrency), default=None)
    if top is None or top is best or top in named or tok_s(top, concurrency) <= tok_s(best, concurrency):
        return []
    return [f"{top.label} adds nothing within noise" if within_noise(top, best, concurrency)
            else _versus(best, top, concurrency)]


def _rivals(arms: list[Arm], best: Arm, concurrency: int) -> list[Arm]:
    """Each other engine's best arm at ``concurrency``."""
    engines = dict.fromkeys(arm.engine for arm in arms if arm.engine != best.engine)
    found = [pick_best([a for a in arms if a.engine == name], concurrency) for name in engines]
    return [arm for arm in found if arm is not None]


def _at_load(arms: list[Arm], best: Arm, concurrency: int, original: str | None) -> str | None:
    """What changes at a higher concurrency: the lead holds, turns, or the engines are within noise."""
    top = best_at(arms, concurrency, original)
    rivals = _rivals(arms, best, concurrency)
    if top is None or best.result_at(concurrency) is None:
        return None
    if top is not best:
        lead = (tok_s(top, concurrency) / tok_s(best, concurrency) - 1) * 100 if tok_s(best, concurrency) else 0.0
        if within_noise(top, best, concurrency):
            return f"at c={concurrency} {top.label} and {best.label} are within noise"
        return f"at c={concurrency} {top.label} leads ({tok_s(top, concurrency):.0f} tok/s, {lead:+.0f} %)"
    if rivals and all(within_noise(rival, best, concurrency) for rival in rivals):
        return f"at c={concurrency} they are within noise"
    return f"at c={concurrency} {best.label} still leads ({tok_s(best, concurrency):.0f} tok/s)"


def judge_profiles(arms: list[Arm], concurrencies: list[int], original: str | None,
                   original_engine: str) -> Verdict:
    """The answer in one sentence, with the arms that did not qualify as notes."""
    first = concurrencies[0]
    best = best_at(arms, first, original)
    notes = other_notes(arms, best, concurrencies)
    if len({arm.engine for arm in arms}) > 1:
        notes.append("the greedy canary compares arms within an engine only: outputs of "
                     f"{' and '.join(engine_of(e).label for e in dict.fromkeys(a.engine for a in arms))} are "
                     f"{NOT_COMPARABLE}")
    if best is None:
        return Verdict(None, "no arm qualifies: none ran to the end with its canary passing", notes)
    verb = "Switch to" if best.engine != original_engine else "Stay on"  # the engine: the setting follows
    head = f"{verb} {best.label}: {tok_s(best, first):.0f} tok/s at c={first}"
    same = [a for a in candidates(arms, first) if a.engine == best.engine and a is not best and a.name == original]
    words = [_versus(best, other, first) for other in same] + _faster_kin(arms, best, first, same) + \
        [_versus(best, other, first) for other in _rivals(arms, best, first)]
    later = [_at_load(arms, best, c, original) for c in concurrencies[1:]]
    return Verdict(best, "; ".join([", ".join([head, *words]), *[w for w in later if w]]), notes)
