"""The ladder of a tune of profiles: when the best setting of the winning engine changes with load, the one
launch of that engine that serves each load its best steps (the engine writes it: ``Launches.ladder``), ready to
save as a profile. Proposed, not measured."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.engines.registry import launches
from mtptui.ops.tune.adaptive import best_steps

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.engines.ladder import Ladder
    from mtptui.ops.tune.arms import Arm


def ladder_of(arms: list[Arm], concurrencies: list[int], best: Arm | None, host: HostConfig) -> Ladder | None:
    """The best engine's ladder, None when one setting is best at every load (or the engine has no ladder)."""
    if best is None:
        return None
    steps = best_steps([arm for arm in arms if arm.engine == best.engine], concurrencies)
    model = launches(best.engine)
    if len(set(steps.values())) < 2 or model.ladder is None:
        return None
    ladder: Ladder = model.ladder(best.profile, steps, model.version(host.for_engine(best.engine)))
    return ladder
