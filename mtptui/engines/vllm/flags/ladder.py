"""vLLM's ladder: ``num_speculative_tokens_per_batch_size`` in ``--speculative-config`` (vLLM 0.32.0's
SpeculativeConfig: ``(range_start, range_end, num_speculative_tokens)``, inclusive batch-size ranges), with
``num_speculative_tokens`` the largest of them (what the drafter is sized for)."""

from __future__ import annotations

import json
from typing import Any

from mtptui.engines.ladder import Ladder, batch_ranges
from mtptui.engines.vllm.flags.grid import SPEC, spec_config

KEY = "num_speculative_tokens_per_batch_size"
TOP = 1024  # the last range ends at the profile's --max-num-seqs, else here


def vllm_ladder(profile: Any, best: dict[int, int], version: str) -> Ladder:
    """The profile with a per-batch-size schedule of the best tokens."""
    flags = dict(profile.flags)
    seqs = flags.get("max-num-seqs")
    ranges = batch_ranges(best, seqs if isinstance(seqs, int) and not isinstance(seqs, bool) else TOP)
    config = {**spec_config(flags.get(SPEC)), "num_speculative_tokens": max(best.values()),
              KEY: [list(entry) for entry in ranges]}
    flags[SPEC] = json.dumps(config)
    saved = profile.model_copy(update={"flags": flags, "note": "tune: speculative tokens by batch size"})
    return Ladder(best, saved, f"{KEY} {json.dumps(config[KEY])} in --speculative-config", {KEY: config[KEY]})
