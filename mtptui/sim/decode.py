"""Speculative decoding model: how many tokens one verify step accepts, and how long a step takes.

A stand-in for the GPU, calibrated to the mission's measurements on 2x A6000 (Qwen3.6-27B, TP 2):
no speculation ~22 tok/s; 1 MTP step (2 draft tokens) accept length ~1.75, ~35 tok/s; 3 steps with 4 draft
tokens accept length ~3.1, ~55 tok/s. Drafts are accepted as a chain: the first with probability
``FIRST_ACCEPT``, each further one (given the previous was accepted) with ``NEXT_ACCEPT``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

TARGET_STEP_S = 1 / 22  # one target forward at batch size 1
SPEC_FIXED_S = 0.001015  # verify bookkeeping per step with speculation
DRAFT_STEP_S = 0.003535  # one MTP draft forward (incl. its share of the verify)
BATCH_SLOPE = 0.04  # each extra running request makes the step this much longer
FIRST_ACCEPT = 0.75
NEXT_ACCEPT = 0.95
JITTER = 0.02  # relative standard deviation of a step's duration
WARMUP_EXTRA = 2.0  # the first decode steps after start pay JIT / graph warm-up
WARMUP_STEPS = 6.0  # decay constant of that extra cost, in steps


@dataclass(frozen=True)
class DecodeModel:
    """Step timing and acceptance for one launch: ``steps`` 0 means no speculative decoding."""

    steps: int = 0
    topk: int = 1
    draft_tokens: int = 0

    @property
    def speculative(self) -> bool:
        return self.steps > 0

    @property
    def max_drafts(self) -> int:
        """Draft tokens one step can accept (the bonus token comes on top)."""
        if not self.speculative:
            return 0
        return max(1, min(self.steps, self.draft_tokens - 1 if self.draft_tokens else self.steps))

    @property
    def drafts_per_round(self) -> int:
        """SGLang's accept-rate denominator per request-step: draft tokens - 1, else steps."""
        return (self.draft_tokens - 1) if self.draft_tokens else self.steps

    def _accept_probs(self) -> tuple[float, float]:
        boost = 1 - (1 - FIRST_ACCEPT) ** (1 + 0.25 * (self.topk - 1))  # a wider tree finds more
        return boost, NEXT_ACCEPT

    def draw_correct(self, rng: random.Random) -> int:
        """Correct drafts in one verify step (accepted tokens = this + 1)."""
        first, nxt = self._accept_probs()
        correct = 0
        while correct < self.max_drafts and rng.random() < (first if correct == 0 else nxt):
            correct += 1
        return correct

    def mean_accept_len(self) -> float:
        """Expected accepted tokens per step, bonus token included."""
        first, nxt = self._accept_probs()
        return 1 + sum(first * nxt ** i for i in range(self.max_drafts))

    def step_seconds(self, batch_size: int) -> float:
        """Mean duration of one decode (or draft + verify) step for ``batch_size`` running requests."""
        base = TARGET_STEP_S
        if self.speculative:
            base += SPEC_FIXED_S + DRAFT_STEP_S * self.steps * (1 + 0.1 * (self.topk - 1))
        return base * (1 + BATCH_SLOPE * (max(1, batch_size) - 1))

    def sample_step(self, batch_size: int, steps_since_start: int, rng: random.Random) -> float:
        """One step's duration: the mean, warm-up right after start, and a little jitter."""
        warmup = 1 + WARMUP_EXTRA * math.exp(-steps_since_start / WARMUP_STEPS)
        jitter = max(0.8, min(1.2, rng.gauss(1.0, JITTER)))
        return self.step_seconds(batch_size) * warmup * jitter

    def tokens_per_second(self, batch_size: int = 1) -> float:
        """Steady-state decode speed of one request."""
        return self.mean_accept_len() / self.step_seconds(batch_size)


def prefill_seconds(new_tokens: int, requests: int) -> float:
    """One prefill (extend) batch: a fixed cost plus ~6k tokens/s on this GPU pair."""
    return 0.018 + 0.004 * requests + new_tokens / 6000.0
