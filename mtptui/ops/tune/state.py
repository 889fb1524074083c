"""A tune as it happens and as it ends: the arms, the phase, the ETA, the verdict, what was kept; and its JSON.

The Tuner mutates one ``TuneRun`` on the event loop; the CLI and the tune screen read it when an event says
something changed. ``to_json`` is the issue's contract (fields may be added, never renamed).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from mtptui.engines.ladder import Ladder
from mtptui.engines.registry import engine, launches
from mtptui.ops.tune.arms import Arm, seconds_between
from mtptui.ops.tune.engines_verdict import NOT_COMPARABLE
from mtptui.ops.tune.plan import TunePlan
from mtptui.ops.tune.verdict import Verdict

TuneState = Literal["planned", "running", "restoring", "finished", "aborted"]


@dataclass(frozen=True)
class TuneEvent:
    """Something happened: ``kind`` is plan, arm, phase, switch (between engines), restart, measured, canary,
    verdict, restore or finished."""

    kind: str
    message: str
    arm: str | None = None
    minor: bool = False  # progress inside a step (shards, pools, requests done): for a live view, not a log

    def __str__(self) -> str:
        return f"[{self.arm}] {self.message}" if self.arm else self.message


@dataclass
class TuneRun:
    """The live state of one tune (``state``: planned, running, restoring, finished, aborted)."""

    plan: TunePlan
    clock: Callable[[], float] = time.monotonic
    state: TuneState = "planned"
    current: str | None = None
    phase: str | None = None
    verdict: Verdict | None = None
    kept: str | None = None  # original | best, once the host runs it; None while not (or when restoring failed)
    restore: str | None = None  # how the final restart went, in one sentence
    aborted: str | None = None  # why the tune stopped early
    started: float | None = None
    started_at: str | None = None  # when it started, ISO-8601 UTC (what the arms table says its results are of)
    ended: float | None = None
    restart_s: list[float] = field(default_factory=list)
    restarts: list[dict[str, Any]] = field(default_factory=list)  # each restart: profile, outcome, steps, gateway
    rig: dict[str, Any] | None = None
    canary_references: dict[str, str] = field(default_factory=dict)  # engine -> the arm its canaries compare with
    ladder: Ladder | None = None  # a tune of profiles: the best engine's launch for every load, when they differ
    switches: list[str] = field(default_factory=list)  # the engine switches so far, in words (a step each)

    @property
    def arms(self) -> list[Arm]:
        return self.plan.arms

    @property
    def busy(self) -> bool:
        return self.state in ("running", "restoring")

    def eta_s(self) -> float | None:
        """Seconds left: the arms still to run at the mean duration of the finished ones, plus the final restart;
        None until one arm has finished."""
        took = [a.ended - a.started for a in self.arms
                if a.started is not None and a.ended is not None and a.status in ("done", "failed")]
        if not self.busy or not took:
            return None
        per_arm, now = sum(took) / len(took), self.clock()
        pending = sum(1 for a in self.arms if a.status == "pending")
        running_since = [a.started for a in self.arms if a.status == "running" and a.started is not None]
        left = pending * per_arm + sum(max(0.0, per_arm - (now - started)) for started in running_since)
        restart = sum(self.restart_s) / len(self.restart_s) if self.restart_s else 0.0
        return left + (restart if self.state == "running" else 0.0)

    def to_json(self) -> dict[str, Any]:
        plan, best = self.plan, self.verdict.best if self.verdict else None
        return {
            "host": plan.host.name, "engine": plan.host.engine, "base_profile": plan.base,
            "engine_version": launches(plan.host.engine).version(plan.host),
            "sglang_version": plan.host.sglang_version,  # before "engine_version"; tests/test_lab_tune.py reads it
            "arms": [arm.to_json() for arm in plan.arms], "best": best.name if best else None, "kept": self.kept,
            "verdict": self.verdict.sentence if self.verdict else None,
            "notes": list(self.verdict.notes) if self.verdict else [],
            "original": {"profile": plan.original.name, "from": plan.original.label,
                         "host_profile": plan.original.matched},
            "keep": plan.keep, "restore": self.restore, "aborted": self.aborted, "state": self.state,
            "workload": plan.workload.to_json(), "rig": self.rig,
            "adaptive": plan.proposal.to_json() if plan.proposal else None,
            "duration_s": seconds_between(self.started, self.ended),
            "gateway": plan.gateway_json(), "restarts": list(self.restarts), "engines": plan.engines,
            "canary": {"references": dict(self.canary_references),
                       "across_engines": NOT_COMPARABLE if len(plan.engines) > 1 else None},
            "ladder": self.ladder_json(), "switches": list(self.switches),
        }

    def ladder_json(self) -> dict[str, Any] | None:
        best = self.verdict.best if self.verdict else None
        if self.ladder is None or best is None:
            return None
        return {"engine": best.engine, "from_arm": best.name, **self.ladder.to_json(),
                "sentence": self.ladder.sentence(engine(best.engine).label)}
