"""An adaptive-speculation proposal of a tune (mtptui.ops.tune.adaptive makes it): what it rests on and says."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mtptui.config.models import LaunchProfile

STEPS = "speculative-num-steps"


@dataclass(frozen=True)
class Proposal:
    """The best steps per concurrency, the ladder measured, and the adaptive profile that follows."""

    best: dict[int, int]
    ladder: tuple[int, ...]
    profile: LaunchProfile
    config: dict[str, Any] | None  # the config file it needs (None: the release's defaults hold the best steps)
    release_candidates: tuple[int, ...] = ()  # what the server adapts between without a config file

    @property
    def runnable(self) -> bool:
        return self.config is None

    @property
    def candidates(self) -> tuple[int, ...]:
        """The steps the proposed server would adapt between: the ladder through its config file, or else the
        release's own candidates (which hold every best step, or the proposal would need the file)."""
        return self.ladder if self.config is not None else self.release_candidates

    def sentence(self) -> str:
        where = ", ".join(f"c={c}: steps {steps}" for c, steps in self.best.items())
        start = next(iter(self.best.values()))
        head = f"the best steps differ by concurrency ({where}): an adaptive profile could serve both, " \
               f"starting at {start}"
        if self.config is None:
            return head + (f" (the release's own candidates {','.join(map(str, self.candidates))} hold those steps; "
                           f"measured ladder {','.join(map(str, self.ladder))})")
        return head + (f" (candidates {','.join(map(str, self.ladder))}, the measured ladder); it needs "
                       f"--speculative-adaptive-config with {json.dumps(self.config)}")

    def to_json(self) -> dict[str, Any]:
        return {"best_steps": {str(c): s for c, s in self.best.items()}, "candidates": list(self.candidates),
                "ladder": list(self.ladder),
                "flags": dict(self.profile.flags), "config": self.config, "sentence": self.sentence()}
