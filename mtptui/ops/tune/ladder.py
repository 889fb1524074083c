"""The ladder of a tune of profiles: when the best setting of the winning engine changes with load, the one
launch of that engine that serves each load its best steps (the engine writes it: ``Launches.ladder``), ready to
save as a profile. Proposed, not measured."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.engines.registry import launches
from mtptui.ops.tune.adaptive import _steps
from mtptui.ops.tune.verdict import pick_best

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.engines.ladder import Ladder
    from mtptui.ops.tune.arms import Arm


def best_steps_of(arms: list[Arm], concurrencies: list[int]) -> dict[int, int]:
    """The draft steps of the best of ``arms`` at each concurrency (where one is best and drafts)."""
    out: dict[int, int] = {}
    for concurrency in concurrencies:
        best = pick_best(arms, concurrency)
        steps = _steps(best) if best is not None else None
        if steps is not None:
            out[concurrency] = steps
    return out


def ladder_of(arms: list[Arm], concurrencies: list[int], best: Arm | None, host: HostConfig) -> Ladder | None:
    """The best engine's ladder, None when one setting is best at every load (or the engine has no ladder)."""
    if best is None:
        return None
    steps = best_steps_of([arm for arm in arms if arm.engine == best.engine], concurrencies)
    model = launches(best.engine)
    if len(set(steps.values())) < 2 or model.ladder is None:
        return None
    ladder: Ladder = model.ladder(best.profile, steps, model.version(host.for_engine(best.engine)))
    return ladder
