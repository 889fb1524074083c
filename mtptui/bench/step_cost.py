"""The cost of one decode step, and the verdict that accept length alone misses: "same acceptance, slower steps".

A request's decode speed is its accept length (tokens per verify step) over the time of one step, so one step
costs ``1000 × accept length / tok/s`` milliseconds (a step without speculation yields one token). A slower verify
kernel keeps the accept length and lengthens the step: tok/s falls while acceptance says all is well
(``../shared/reference/speculative-performance.md``). Figures are only comparable at the same load, on the same
rig and engine version, with the same speculative shape (steps, top-k, draft tokens) and the same spec v2
setting; callers choose the baseline, this module judges the samples (the bench's noise test: Welch's t-test,
p < 0.05, at least 5 % longer steps; acceptance "the same" within 3 %).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from mtptui.bench.stats import mean, welch

ALPHA = 0.05
MIN_EFFECT = 0.05  # steps at least this much longer
SAME_ACCEPT = 0.03  # accept lengths this close are "the same acceptance"


def step_ms(accept_len: float | None, tok_s: float | None) -> float | None:
    """Milliseconds one step takes: tokens per step (the accept length; 1 without speculation) over tok/s."""
    if not isinstance(tok_s, (int, float)) or tok_s <= 0:
        return None
    tokens = accept_len if isinstance(accept_len, (int, float)) and accept_len > 0 else 1.0
    return 1000.0 * tokens / tok_s


def request_step_ms(run: dict[str, Any]) -> list[float]:
    """Each successful request's step cost (its own accept length where the release sends one, else the run's)."""
    run_accept = (run.get("summary") or {}).get("accept_len")
    out = []
    for request in run.get("requests") or []:
        if request.get("ok"):
            value = step_ms(request.get("accept_len") or run_accept, request.get("decode_tok_s"))
            if value is not None:
                out.append(value)
    return out


def run_step_ms(summary: dict[str, Any]) -> float | None:
    """A run's step cost: its accept length over its mean per-request decode speed."""
    return step_ms(summary.get("accept_len"), summary.get("request_tok_s"))


@dataclass(frozen=True)
class StepVerdict:
    """Step cost now against before; ``slower`` when the steps cost more beyond noise at the same acceptance."""

    now_ms: float
    before_ms: float
    accept_now: float | None
    accept_before: float | None
    p_value: float | None

    @property
    def change(self) -> float:
        return self.now_ms / self.before_ms - 1 if self.before_ms else 0.0

    @property
    def same_acceptance(self) -> bool:
        now, before = self.accept_now, self.accept_before
        if now is None or before is None:
            return now is None and before is None  # neither speculates
        return abs(now / before - 1) <= SAME_ACCEPT if before else False

    @property
    def slower(self) -> bool:
        significant = self.p_value is not None and self.p_value < ALPHA
        return self.same_acceptance and significant and self.change >= MIN_EFFECT

    def to_json(self) -> dict[str, Any]:
        return {"now_ms": self.now_ms, "before_ms": self.before_ms, "change": self.change,
                "accept_now": self.accept_now, "accept_before": self.accept_before, "p_value": self.p_value,
                "slower_steps": self.slower, "sentence": self.sentence()}

    def sentence(self) -> str:
        """E.g. "same acceptance, slower steps (+14 %): 64 ms per step vs 56"."""
        change = f"{self.change * 100:+.0f} %".replace("-", "−")
        figures = f"{self.now_ms:.0f} ms per step vs {self.before_ms:.0f}"
        if self.slower:
            return f"same acceptance, slower steps ({change}): {figures}"
        return f"step cost {change}: {figures}" + ("" if self.same_acceptance else " (acceptance changed)")


def judge_steps(now: Sequence[float], before: Sequence[float], accept_now: float | None,
                accept_before: float | None) -> StepVerdict | None:
    """The step costs (ms samples) now against before; None without two samples on each side."""
    if len(now) < 2 or len(before) < 2:
        return None
    return StepVerdict(mean(now), mean(before), accept_now, accept_before, welch(list(now), list(before))[2])


SHAPE = ("speculative_algorithm", "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens")


def _shape(run: dict[str, Any]) -> tuple[Any, ...]:
    flags = run["fingerprint"].get("launch_flags") or {}
    return tuple(flags.get(key) for key in SHAPE)


def comparable(run: dict[str, Any], other: dict[str, Any]) -> bool:
    """Same speculative shape and spec v2 setting (unknown on either side: no difference)."""
    v2, other_v2 = run["fingerprint"].get("spec_v2"), other["fingerprint"].get("spec_v2")
    return _shape(run) == _shape(other) and (v2 is None or other_v2 is None or v2 == other_v2)


def step_baseline(run: dict[str, Any], earlier: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The earlier runs a run's step cost is compared with: its workload, its rig, its shape and spec v2 (the
    fastest configuration among them, as the bench picks its baseline)."""
    from mtptui.bench.compare import best_group
    from mtptui.bench.history import same_class
    from mtptui.bench.rig import rig_of, split_by_rig

    pool = [r for r in same_class(list(earlier), run["fingerprint"]) if r.get("id") != run.get("id")]
    fresh, _ = split_by_rig(pool, rig_of(run["fingerprint"]))
    return best_group([r for r in fresh if comparable(run, r)])


def _accept(runs: Sequence[dict[str, Any]]) -> float | None:
    values = [r["summary"]["accept_len"] for r in runs if isinstance((r.get("summary") or {}).get("accept_len"),
                                                                      (int, float))]
    return mean(values) if values else None


def compare_steps(run: dict[str, Any], earlier: Sequence[dict[str, Any]]) -> StepVerdict | None:
    """A run's step cost against its step baseline (per-request samples); None without one."""
    group = step_baseline(run, earlier)
    before = [value for r in group for value in request_step_ms(r)]
    return judge_steps(request_step_ms(run), before, _accept([run]), _accept(group)) if group else None
