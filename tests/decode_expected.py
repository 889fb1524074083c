"""What the simulator's decode model should give on average, as the calibration tests state it: the server itself
draws each step's acceptance and times each step (mtptui.sim.decode)."""

from __future__ import annotations

from mtptui.sim.decode import DecodeModel


def mean_accept_len(model: DecodeModel) -> float:
    """Expected accepted tokens per step, bonus token included."""
    return 1 + sum(model.chain(depth) for depth in range(1, model.max_drafts + 1))


def tokens_per_second(model: DecodeModel, batch_size: int = 1) -> float:
    """Steady-state decode speed of one request: expected tokens per step over the mean step time."""
    return mean_accept_len(model) / model.step_seconds(batch_size)
