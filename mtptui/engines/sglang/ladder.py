"""SGLang's ladder: adaptive speculation (``--speculative-adaptive``) starting at the best steps of the first
concurrency, its candidates the best steps measured (``candidate_steps`` of ``--speculative-adaptive-config``;
0.5.23's file is a table by batch size, a slot from each concurrency up)."""

from __future__ import annotations

import json
from typing import Any

from mtptui.engines.ladder import Ladder
from mtptui.engines.sglang.adaptive import TIERED


def sglang_ladder(profile: Any, best: dict[int, int], version: str) -> Ladder:
    steps = sorted(set(best.values()))
    config: dict[str, Any] = {str(c): {"candidate_steps": steps} for c in sorted(best)} if version in TIERED \
        else {"candidate_steps": steps}
    flags = {**profile.flags, "speculative-adaptive": True, "speculative-num-steps": best[min(best)],
             "speculative-eagle-topk": 1}
    flags.pop("speculative-num-draft-tokens", None)  # adaptive speculation: draft tokens = steps + 1
    saved = profile.model_copy(update={"flags": flags, "note": "tune: adaptive speculation"})
    return Ladder(best, saved, f"--speculative-adaptive and --speculative-adaptive-config {json.dumps(config)}",
                  {"adaptive_config": config, "candidate_steps": steps})
