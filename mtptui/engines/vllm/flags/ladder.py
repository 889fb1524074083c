"""vLLM's ladder: ``num_speculative_tokens_per_batch_size`` in ``--speculative-config`` (vLLM 0.32.0's
SpeculativeConfig: ``(range_start, range_end, num_speculative_tokens)``, inclusive batch-size ranges), with
``num_speculative_tokens`` the largest of them (what the drafter is sized for)."""

from __future__ import annotations

import json
from typing import Any

from mtptui.engines.ladder import Ladder, batch_ranges

KEY = "num_speculative_tokens_per_batch_size"
TOP = 1024  # the last range ends at the profile's --max-num-seqs, else here


def _config(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return dict(value)
    try:
        found = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        found = None
    return found if isinstance(found, dict) else {}


def vllm_ladder(profile: Any, best: dict[int, int], version: str) -> Ladder:
    """The profile with a per-batch-size schedule of the best tokens."""
    flags = dict(profile.flags)
    seqs = flags.get("max-num-seqs")
    ranges = batch_ranges(best, seqs if isinstance(seqs, int) and not isinstance(seqs, bool) else TOP)
    config = {**_config(flags.get("speculative-config")), "num_speculative_tokens": max(best.values()),
              KEY: [list(entry) for entry in ranges]}
    flags["speculative-config"] = json.dumps(config)
    saved = profile.model_copy(update={"flags": flags, "note": "tune: speculative tokens by batch size"})
    return Ladder(best, saved, f"{KEY} {json.dumps(config[KEY])} in --speculative-config", {KEY: config[KEY]})
