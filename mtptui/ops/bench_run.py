"""One benchmark run for the dashboard: run it live, record it in history, compare it with the earlier runs.

    outcome = await run_bench(BenchRequest(url, "demo", "rbtree", 1, 3, 192), on_event=post)

Two comparisons come back: with the best earlier configuration of the same workload (mtptui.bench.compare,
the regression verdict), and with the run just before this one (so "how much better than the run before" is
answered even when an older, better run exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from mtptui.bench.events import BenchEvent

TIMEOUT_S = 120.0


@dataclass(frozen=True)
class BenchRequest:
    """What to measure: the API base URL, the name history files it under, and the workload."""

    url: str
    target: str
    prompts: str
    concurrency: int
    requests: int
    max_tokens: int
    warmup: int = 1


@dataclass
class BenchOutcome:
    """A finished run as stored in history (its Bench JSON with ``id``), and how it compares."""

    run: dict[str, Any]
    best: Any  # mtptui.bench.compare.Comparison
    previous: Any = None  # Comparison with the run just before, None when that is the best one or absent


def bench_config(request: BenchRequest):
    """The engine's configuration; an unknown prompt set is a UserError."""
    from mtptui.bench.load import LoadPlan
    from mtptui.bench.payload import Sampling
    from mtptui.bench.prompts import load_prompt_set
    from mtptui.bench.runner import BenchConfig

    plan = LoadPlan(requests=request.requests, concurrency=request.concurrency, warmup=request.warmup)
    return BenchConfig(url=request.url, prompts=load_prompt_set(request.prompts), plan=plan,
                       max_tokens=request.max_tokens, sampling=Sampling(temperature=0.0), target=request.target,
                       timeout=TIMEOUT_S)


def record_and_compare(run: dict[str, Any], history_path=None) -> BenchOutcome:
    """Append the run to history and compare it with the best earlier run and with the one just before."""
    from mtptui.bench import history
    from mtptui.bench.compare import compare

    earlier = history.load_runs(history_path)
    record = history.append_run(run, history_path)
    best = compare([record], earlier)
    same = history.same_class(earlier, record["fingerprint"])
    previous = None
    if same and (best.baseline is None or same[-1].get("id") != best.baseline.get("id")):
        previous = compare([record], [same[-1]])
    return BenchOutcome(record, best, previous)


async def run_bench(request: BenchRequest, on_event: Callable[[BenchEvent], None]) -> BenchOutcome:
    """Run, record and compare; raises UserError when the server cannot be reached."""
    from mtptui.bench.runner import BenchRunner

    result = await BenchRunner(bench_config(request)).run(on_event=on_event)
    return record_and_compare(result.to_json())
