"""What a draft source proposes and what it costs, by kind: the engine-neutral half of speculative decoding.

A stand-in for the draft (there is no GPU here). ``chain[k-1]`` is the probability that the first k drafts of a
step are all accepted, at topk 1; beyond the table each further position keeps ``tail`` of the one before.
``token_s`` is one draft forward (per draft token), ``fixed_s`` the verify bookkeeping a speculative step adds.
Both engines' personalities use these (SGLang's NEXTN/EAGLE, vLLM's methods), so "more MTP or vLLM?" compares
engines by their settings and costs, not by different guesses about the same draft head.

- ``MTP_HEAD``: the mission's MTP head on Qwen3.6-27B over 2x A6000 (mtptui.sim.decode's calibration: 1.75 at one
  step, ~3.05 at three; a fourth step costs about what it brings), one draft forward ~2.3 ms (its LM head).
- ``EAGLE_HEAD``/``EAGLE3_HEAD``: separately trained one-layer heads; a smooth fall by position (EAGLE-3 reads
  more of the target's features and holds longer), a forward like the MTP head's.
- ``DRAFT_MODEL``: a small separate model (~0.5-1B): several layers per draft token, so ~3x the head's cost.
- ``NGRAM_LOOKUP``: prompt lookup on the CPU, nearly free, right mostly where the output repeats its context.
These four are assumptions of the same shape as the public per-position measurements
(``../shared/reference/speculative-performance.md``), not measurements of this GPU pair.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Drafter:
    """One kind of draft source: acceptance by draft position and the cost of drafting."""

    kind: str
    chain: tuple[float, ...]
    tail: float
    token_s: float
    fixed_s: float

    def position(self, k: int) -> float:
        """P(the first k drafts are all accepted) at topk 1, k >= 1."""
        if k <= len(self.chain):
            return self.chain[k - 1]
        return self.chain[-1] * self.tail ** (k - len(self.chain))


MTP_HEAD = Drafter("mtp", (0.75, 0.70, 0.60, 0.12, 0.07, 0.04, 0.025, 0.015, 0.009, 0.005), 0.6,
                   token_s=0.002273, fixed_s=0.001818)
EAGLE_HEAD = Drafter("eagle", (0.72, 0.50, 0.34, 0.23, 0.15, 0.10), 0.65, token_s=0.0024, fixed_s=0.001818)
EAGLE3_HEAD = Drafter("eagle3", (0.78, 0.60, 0.45, 0.34, 0.25, 0.18), 0.7, token_s=0.0026, fixed_s=0.001818)
DRAFT_MODEL = Drafter("draft_model", (0.70, 0.50, 0.36, 0.26, 0.19), 0.72, token_s=0.0068, fixed_s=0.0025)
NGRAM_LOOKUP = Drafter("ngram", (0.45, 0.30, 0.21, 0.15, 0.11), 0.72, token_s=0.00005, fixed_s=0.0012)
