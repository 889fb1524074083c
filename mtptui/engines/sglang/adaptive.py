"""SGLang's adaptive speculative decoding (``--speculative-adaptive``), release by release.

With the flag the worker moves ``speculative_num_steps`` (draft tokens = steps + 1) between candidate steps while
it runs, by an EMA of the accepted drafts per request and step. What differs by release (facts from the wheels,
``speculative/adaptive_spec_params.py``; ``tests/test_sglang_conformance.py`` holds this module to them):

- 0.5.12.post1: one candidate list (``candidate_steps`` of ``--speculative-adaptive-config FILE.json``, default
  ``[1, 3, 7]``), the launch's own steps added when missing, at least two distinct values; the file is read by the
  worker at startup, not while the arguments are checked.
- 0.5.23: a table by batch size (``{"1": {"candidate_steps": [1, 3, 5, 7]}, "8": ..., "32": ..., "64": ...}``,
  each slot with its own EMA); the file is read while the arguments are resolved, unset steps become the middle
  of the union of every slot's candidates, and steps 0 (no drafting) may be a candidate.

Both turn it off for what they cannot switch (``unsupported_reason``) and log why; the log lines are in
``mtptui.engines.sglang.surface``'s texts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

ALGORITHMS = ("EAGLE", "EAGLE3")  # NEXTN runs as EAGLE
TIERED = frozenset({"0.5.23"})  # releases whose config is a table by batch size
DEFAULT_CANDIDATES = (1, 3, 7)  # 0.5.12.post1
FLAG, CONFIG_FLAG = "--speculative-adaptive", "--speculative-adaptive-config"


@dataclass(frozen=True)
class Tuning:
    """How one slot moves: the EMA's weight, how often it may switch, after how many batches, the hysteresis."""

    ema_alpha: float = 0.2
    update_interval: int = 5
    warmup_batches: int = 10
    down_hysteresis: float = -0.25
    up_hysteresis: float = 0.0
    ceiling_coeff: float = 0.0


@dataclass(frozen=True)
class Tier:
    """The candidates from batch size ``batch_size`` up (one tier from 1 for an untiered release)."""

    batch_size: int
    candidates: tuple[int, ...]
    tuning: Tuning = field(default_factory=Tuning)


DEFAULT_TIERS = (  # 0.5.23's DEFAULT_ADAPTIVE_CONFIG
    Tier(1, (1, 3, 5, 7), Tuning(down_hysteresis=-0.25)),
    Tier(8, (0, 1, 3), Tuning(down_hysteresis=0.0)),
    Tier(32, (0, 1), Tuning(down_hysteresis=0.0)),
    Tier(64, (0,), Tuning(down_hysteresis=0.0)),
)
_COMMON = {
    "algorithm": "speculative_algorithm={} (only EAGLE/EAGLE3 are supported)",
    "topk": "speculative_eagle_topk={} (only topk=1 is supported)",
    "two_batch_overlap": "enable_two_batch_overlap=True is not supported (adaptive state swap would discard the "
                         "TboAttnBackend wrapper)",
    "pdmux": "enable_pdmux=True is not supported (adaptive state swap does not update decode_attn_backend_group)",
}
REASONS = {  # adaptive_unsupported_reason's texts
    "0.5.12.post1": {**_COMMON, "dp_attention": "enable_dp_attention=True is not supported (adaptive tier "
                                                "decisions are not synchronized across DP ranks)",
                     "multi_layer": "enable_multi_layer_eagle=True is not supported (MultiLayerEagleWorker does "
                                    "not implement adaptive)"},
    "0.5.23": {**_COMMON, "dp_attention": "attention DP is not supported (adaptive tier decisions are not "
                                          "synchronized across DP ranks)",
               "multi_layer": "enable_multi_layer_eagle=True is not supported (MultiLayerEagleWorkerV2 does not "
                              "implement adaptive)"},
}


class AdaptiveConfigError(ValueError):
    """The adaptive config file is not one SGLang takes; the text is SGLang's."""


@dataclass(frozen=True)
class Blockers:
    """The settings that make SGLang turn adaptive speculation off, as it resolves them."""

    algorithm: str | None
    topk: int | None
    attention_dp: bool = False
    multi_layer: bool = False
    two_batch_overlap: bool = False
    pdmux: bool = False


def unsupported_reason(version: str, b: Blockers) -> str | None:
    """Why SGLang turns adaptive speculation off for these settings (``adaptive_unsupported_reason``), or None.

    0.5.12.post1 asks after resolving top-k; 0.5.23 before, and an unset top-k passes there (it becomes 1)."""
    reasons = REASONS.get(version, REASONS["0.5.23"])
    if b.algorithm not in ALGORITHMS:
        return reasons["algorithm"].format(b.algorithm)
    if b.topk != 1 and (b.topk is not None or version not in TIERED):
        return reasons["topk"].format(b.topk)
    checks = (("dp_attention", b.attention_dp), ("multi_layer", b.multi_layer),
              ("two_batch_overlap", b.two_batch_overlap), ("pdmux", b.pdmux))
    return next((reasons[name] for name, found in checks if found), None)


def read_config(text: str, version: str) -> dict[str, Any]:
    """The config file's JSON object; AdaptiveConfigError as SGLang words it."""
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise AdaptiveConfigError(f"json.decoder.JSONDecodeError: {exc}") from None
    if not isinstance(config, dict):
        if version in TIERED:  # 0.5.23 iterates its items
            raise AdaptiveConfigError(f"AttributeError: '{type(config).__name__}' object has no attribute 'items'")
        raise AdaptiveConfigError("ValueError: speculative_adaptive_config must be a JSON object, "
                                  f"got {type(config).__name__}")
    return config


def _tuning(entry: dict[str, Any], base: Tuning = Tuning()) -> Tuning:
    known = {name: entry[name] for name in Tuning.__dataclass_fields__ if name in entry}
    return replace(base, **known)


def tiers(version: str, config: dict[str, Any] | None) -> tuple[Tier, ...]:
    """The slots a config gives (SGLang's defaults without one); AdaptiveConfigError for one SGLang refuses."""
    if version not in TIERED:
        candidates = (config or {}).get("candidate_steps", list(DEFAULT_CANDIDATES))
        return (Tier(1, tuple(sorted(set(candidates))), _tuning(config or {})),)
    if config is None:
        return DEFAULT_TIERS
    found = []
    for key, entry in config.items():
        if not key.isdigit():
            continue
        steps = entry.get("candidate_steps") if isinstance(entry, dict) else None
        if not isinstance(steps, list) or not steps or not all(isinstance(s, int) and s >= 0 for s in steps):
            raise AdaptiveConfigError(f"ValueError: BS {key}: candidate_steps must be a list of non-negative ints, "
                                      f"got {steps!r}")
        found.append(Tier(int(key), tuple(sorted(set(steps))), _tuning({**config, **entry})))
    if not found:
        raise AdaptiveConfigError('ValueError: speculative_adaptive_config must contain at least one integer-string '
                                  'BS key, e.g. {"1": {"candidate_steps": [1,3,7]}}. '
                                  f"Got keys: {list(config.keys())}")
    return tuple(sorted(found, key=lambda tier: tier.batch_size))


def candidates_of(slots: tuple[Tier, ...]) -> tuple[int, ...]:
    """Every step any slot may run (0.5.23 sizes its runtime buffers for the union)."""
    return tuple(sorted({step for tier in slots for step in tier.candidates}))


def default_steps(slots: tuple[Tier, ...]) -> int:
    """0.5.23's steps when the launch leaves them out: the middle of the union of the candidates."""
    union = candidates_of(slots)
    return union[len(union) // 2]


@dataclass(frozen=True)
class AdaptiveStart:
    """What the worker starts with: its slots, its steps, and whether the steps had to be added (0.5.12.post1)."""

    slots: tuple[Tier, ...]
    steps: int
    added: bool = False

    @property
    def candidates(self) -> tuple[int, ...]:
        return candidates_of(self.slots)


def start(version: str, config: dict[str, Any] | None, steps: int) -> AdaptiveStart:
    """The worker's adaptive start with the launch's resolved ``steps``; AdaptiveConfigError where SGLang fails."""
    slots = tiers(version, config)
    if version in TIERED:
        return AdaptiveStart(slots, steps)
    tier = slots[0]
    added = steps not in tier.candidates
    if added:
        tier = replace(tier, candidates=tuple(sorted({*tier.candidates, steps})))
    if len(tier.candidates) < 2:
        raise AdaptiveConfigError("AssertionError: candidate_steps must have at least 2 distinct values")
    return AdaptiveStart((tier,), steps, added)
