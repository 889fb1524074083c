"""A ladder: the best speculative steps change with load (deep drafts pay at c=1 and cost verify work in a big
batch), and each engine has its own way to serve several in one launch. SGLang adapts between candidate steps
(``--speculative-adaptive`` with ``--speculative-adaptive-config``'s ``candidate_steps``); vLLM picks the tokens by
batch size (``num_speculative_tokens_per_batch_size`` in ``--speculative-config``). Each engine writes its own
(the registry's ``Launches.ladder``); the tune only says which steps were best where."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ladder:
    """The best steps by concurrency, and the launch profile that serves them, ready to save."""

    best: dict[int, int]  # concurrency -> the best arm's draft steps there
    profile: Any  # mtptui.config.models.LaunchProfile (engines/ does not import config's callers)
    setting: str  # what the profile sets, in the engine's words
    data: dict[str, Any]  # the same as JSON

    def sentence(self, label: str) -> str:
        where = ", ".join(f"c={c}: {steps}" for c, steps in self.best.items())
        return f"the best steps change with load ({where}): one {label} launch can serve them all with {self.setting}"

    def to_json(self) -> dict[str, Any]:
        return {"best_steps": {str(c): s for c, s in self.best.items()}, "setting": self.setting, **self.data,
                "flags": dict(self.profile.flags)}


def batch_ranges(best: dict[int, int], top: int) -> list[tuple[int, int, int]]:
    """(first batch size, last batch size, steps): each concurrency's best from it up to the next one's."""
    levels = sorted(best)
    return [(c, (levels[i + 1] - 1) if i + 1 < len(levels) else max(top, c), best[c]) for i, c in enumerate(levels)]
