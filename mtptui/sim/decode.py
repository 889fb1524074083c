"""Speculative decoding model: how many drafts one verify step accepts, and how long a step takes.

A stand-in for the GPU, calibrated to the mission's measurements on 2x A6000 (Qwen3.6-27B, TP 2): no
speculation ~22 tok/s; 1 MTP step (2 draft tokens) accept length ~1.75, ~35 tok/s; 3 steps with 4 draft
tokens accept length ~3.05, ~55 tok/s (``../shared/reference/speculative-performance.md``).

Acceptance by draft position (``MTP_HEAD.chain`` of mtptui.sim.drafting, topk 1): the probability that the first k
drafts of a step are all accepted. Positions 1-3 come from the mission's host (1.75 at one step, ~3.05 at three).
From position 4 on it falls by ~0.6 a position, the ratio of the public per-position measurements on 27B MTP heads
(0.74 / 0.47 / 0.31 / 0.19); where that tail starts (0.12) is set so that a fourth step costs about what it brings,
as the incident found: deeper settings stop paying.

Which drafts a step accepts is decided by one number in [0, 1) per step (mtptui.sim.draws: seeded and
stratified, so short runs realize the expected accept length closely): the step accepts the first k drafts when the
number is below the probability of position k. The same number accepts at least as many drafts under a deeper
setting, so a tuner's arms differ by their settings, not by luck.

Step time: the target's verify of every running request's draft tokens (a cost per request and a smaller one per
verified token: the batch effects, which make deep drafts costlier at high concurrency), one draft forward per
step, and a fixed cost of speculation. What the draft source accepts and costs by position is its
``drafter`` (mtptui.sim.drafting; default the mission's MTP head, ``MTP_HEAD``: one draft forward costs its
``token_s``, memory-bound, flat in the batch size; the verify bookkeeping of a step its ``fixed_s``).

Two test knobs (``mtptui sim --sim-acceptance F --sim-verify-slowdown S``, or $MTPTUI_SIM_ACCEPTANCE and
$MTPTUI_SIM_VERIFY_SLOWDOWN in the server's environment): ``acceptance`` multiplies the probability of every
draft position (0.2: a workload the draft head barely predicts, which makes adaptive speculation shift down);
``verify_slowdown`` multiplies the target's verify time (a slower kernel that keeps accept length as it is).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Mapping

from mtptui.errors import UserError
from mtptui.sim.drafting import MTP_HEAD, Drafter

TARGET_STEP_S = 1 / 22  # one target forward of one token at batch size 1
VERIFY_TOKEN_SLOPE = 0.01  # each further token verified in the step (any request's) costs this share of it
BATCH_SLOPE = 0.04  # each further running request (its KV and mamba state) costs this share of it
JITTER = 0.02  # relative standard deviation of a step's duration
WARMUP_EXTRA = 2.0  # the first decode steps after start pay JIT / graph warm-up
WARMUP_STEPS = 6.0  # decay constant of that extra cost, in steps
ACCEPTANCE_ENV, VERIFY_SLOWDOWN_ENV = "MTPTUI_SIM_ACCEPTANCE", "MTPTUI_SIM_VERIFY_SLOWDOWN"


def _knob(env: Mapping[str, str], name: str) -> float:
    """A positive number from the server's environment (a test knob), 1 when unset."""
    text = env.get(name)
    if text is None:
        return 1.0
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise UserError(f"{name} must be a positive number, not {text!r}")
    return value


def env_knobs(env: Mapping[str, str]) -> tuple[float, float]:
    """(acceptance, verify_slowdown) from the server's environment."""
    return _knob(env, ACCEPTANCE_ENV), _knob(env, VERIFY_SLOWDOWN_ENV)


@dataclass(frozen=True)
class DecodeModel:
    """Step timing and acceptance for one launch: ``steps`` 0 means no speculative decoding."""

    steps: int = 0
    topk: int = 1
    draft_tokens: int = 0
    drafter: Drafter = MTP_HEAD
    acceptance: float = 1.0
    verify_slowdown: float = 1.0

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

    @property
    def verified_tokens(self) -> int:
        """Tokens the target verifies per request and step."""
        return max(1, self.draft_tokens or self.steps + 1) if self.speculative else 1

    def chain(self, depth: int) -> float:
        """P(the first ``depth`` drafts are all accepted); a wider tree (topk) finds more at every depth."""
        widen = 1 + 0.25 * (self.topk - 1)
        total = 1.0
        for k in range(1, depth + 1):
            position = self.drafter.position
            conditional = position(k) / (position(k - 1) if k > 1 else 1.0)
            total *= min(1.0, (1 - (1 - conditional) ** widen) * self.acceptance)
        return total

    def correct(self, draw: float) -> int:
        """Correct drafts of a step whose draw is ``draw`` (accepted tokens = this + 1)."""
        correct = 0
        while correct < self.max_drafts and draw < self.chain(correct + 1):
            correct += 1
        return correct

    def step_seconds(self, batch_size: int) -> float:
        """Mean duration of one decode (or draft + verify) step for ``batch_size`` running requests."""
        batch = max(1, batch_size)
        verify = TARGET_STEP_S * self.verify_slowdown * (1 + BATCH_SLOPE * (batch - 1)
                                                         + VERIFY_TOKEN_SLOPE * (batch * self.verified_tokens - 1))
        if not self.speculative:
            return verify
        drafting = self.drafter.token_s * self.steps * (1 + 0.1 * (self.topk - 1))
        return verify + self.drafter.fixed_s + drafting

    def sample_step(self, batch_size: int, steps_since_start: int, rng: random.Random) -> float:
        """One step's duration: the mean, warm-up right after start, and a little jitter."""
        warmup = 1 + WARMUP_EXTRA * math.exp(-steps_since_start / WARMUP_STEPS)
        jitter = max(0.8, min(1.2, rng.gauss(1.0, JITTER)))
        return self.step_seconds(batch_size) * warmup * jitter


def prefill_seconds(new_tokens: int, requests: int) -> float:
    """One prefill (extend) batch: a fixed cost plus ~6k tokens/s on this GPU pair."""
    return 0.018 + 0.004 * requests + new_tokens / 6000.0
