"""Adaptive speculative decoding in the simulated server: SGLang's EMA with hysteresis, per release.

After every verify step the worker feeds the correct drafts of each request into an EMA; after ``warmup_batches``
and then every ``update_interval`` batches it moves between the candidate steps: down while the EMA is at or
below ``previous - 0.5 + down_hysteresis``, up while it is above ``current - 0.5 + up_hysteresis``. 0.5.12.post1
has one slot; 0.5.23 one per batch-size tier (the batch padded to a captured graph size, then the largest tier
not above it), where steps 0 (no drafting) may be a candidate, a slot that moved down does not move up in the
same update, and an optional ceiling caps downward moves. A switch changes the decode model (draft tokens =
steps + 1) and writes SGLang's log lines; /server_info's internal state then shows the live steps.
(Facts: mtptui.engines.sglang.adaptive; ``speculative/adaptive_spec_params.py`` of each wheel.)
"""

from __future__ import annotations

import bisect
import math
from dataclasses import replace

from mtptui.engines.sglang.adaptive import TIERED, AdaptiveStart, Tier
from mtptui.sim.boot import Boot
from mtptui.sim.logfmt import LogWriter


class Slot:
    """One candidate list and its EMA of correct drafts per request and step."""

    def __init__(self, tier: Tier, initial: int, tiered: bool) -> None:
        self.candidates, self.tuning, self.tiered = list(tier.candidates), tier.tuning, tiered
        middle = self.candidates[len(self.candidates) // 2]
        self.current = initial if initial in self.candidates else middle
        self.ema = float(self.current - 1)
        self.batches = 0

    def update(self, corrects: list[int]) -> bool:
        """One verify step's correct drafts per request; True when the steps changed."""
        if not corrects:
            return False
        if self.current > 0 or not self.tiered:
            alpha = self.tuning.ema_alpha
            self.ema = (1 - alpha) * self.ema + alpha * sum(corrects) / len(corrects)
        self.batches += 1
        warmup, every = self.tuning.warmup_batches, self.tuning.update_interval
        if self.batches <= warmup or (self.batches - warmup) % every:
            return False
        target = self._zero_probe() if self.tiered and self.current == 0 else self._target()
        changed, self.current = target != self.current, target
        return changed

    def _zero_probe(self) -> int:
        """0.5.23: after a no-drafting interval, try the smallest positive candidate."""
        index = min(self.candidates.index(0) + 1, len(self.candidates) - 1)
        target = self.candidates[index]
        if target > 0 and self.ema < 0:
            self.ema = float(target - 1)
        return target

    def _target(self) -> int:
        index = start = self.candidates.index(self.current)
        while index > 0:
            previous = self.candidates[index - 1]
            threshold = (0.5 if previous == 0 and self.tiered else previous - 0.5) + self.tuning.down_hysteresis
            if self.ema > threshold:
                break
            index -= 1
        if not (self.tiered and index < start):
            while index < len(self.candidates) - 1 and \
                    self.ema > self.candidates[index] - 0.5 + self.tuning.up_hysteresis:
                index += 1
        return self._ceiling(index)

    def _ceiling(self, index: int) -> int:
        target, coeff = self.candidates[index], self.tuning.ceiling_coeff
        if coeff > 0 and target <= self.current:
            ceiling = max(1, math.ceil(self.ema * coeff))
            while index > 0 and self.candidates[index] > ceiling:
                index -= 1
        return self.candidates[index]


class AdaptiveRuntime:
    """The worker's adaptive controller: which slot a batch uses, the switches, and their log lines."""

    def __init__(self, boot: Boot, log: LogWriter, start: AdaptiveStart) -> None:
        self.boot, self.log = boot, log
        self.tiered = boot.settings.version in TIERED
        self.slots = {tier.batch_size: Slot(tier, start.steps, self.tiered) for tier in start.slots}
        self.switches = 0

    @property
    def steps(self) -> int:
        return self.boot.decode.steps

    def _slot(self, batch_size: int) -> Slot:
        sizes, keys = self.boot.capture_bs, sorted(self.slots)
        padded = sizes[bisect.bisect_left(sizes, batch_size)] if sizes and batch_size <= sizes[-1] else batch_size
        return self.slots[keys[max(0, bisect.bisect_right(keys, padded) - 1)]]

    def before_step(self, batch_size: int) -> None:
        """0.5.23 picks the steps of the batch's slot before each step; 0.5.12.post1 keeps its one setting."""
        if self.tiered:
            self._switch(self._slot(batch_size).current)

    def after_verify(self, corrects: list[int], batch_size: int) -> None:
        slot = self._slot(batch_size)
        before = slot.current
        if slot.update(corrects):
            self.log.rank(0, self.boot.surface.text("adaptive_updated", before, slot.current, slot.ema))
            self._switch(slot.current)

    def _switch(self, steps: int) -> None:
        decode = self.boot.decode
        if steps == decode.steps:
            return
        self.log.rank(0, self.boot.surface.text("adaptive_switch", decode.steps, steps, decode.draft_tokens, steps + 1))
        self.boot.decode = replace(decode, steps=steps, draft_tokens=steps + 1)
        self.switches += 1
