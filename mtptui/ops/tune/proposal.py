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

    @property
    def runnable(self) -> bool:
        return self.config is None

    def sentence(self) -> str:
        where = ", ".join(f"c={c}: steps {steps}" for c, steps in self.best.items())
        head = f"the best steps differ by concurrency ({where}): an adaptive profile (candidates " \
               f"{','.join(map(str, self.ladder))}, starting at {next(iter(self.best.values()))}) could serve both"
        if self.config is None:
            return head
        return head + f"; it needs --speculative-adaptive-config with {json.dumps(self.config)}"

    def to_json(self) -> dict[str, Any]:
        return {"best_steps": {str(c): s for c, s in self.best.items()}, "candidates": list(self.ladder),
                "flags": dict(self.profile.flags), "config": self.config, "sentence": self.sentence()}
