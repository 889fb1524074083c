"""What a vLLM launch configures for speculative decoding, as the dashboard's speculation pane shows it: the
method is the algorithm, and vLLM drafts ``num_speculative_tokens`` tokens in as many steps (no tree, no topk).
vLLM does not adapt them while it runs (0.32.0), so there are no candidates."""

from __future__ import annotations

import json
from typing import Any

from mtptui.engines.vllm.flags.launchset import VllmFlagSet
from mtptui.engines.vllm.flags.speculative import SHORTHANDS
from mtptui.speculation import LiveSpeculation, SpecShape


def _config(launch: VllmFlagSet) -> dict[str, Any]:
    """--speculative-config (a dict, or its JSON text) with the shorthand flags folded in; {} when unset."""
    config = launch.get("--speculative-config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except ValueError:
            config = None
    merged = {str(k).replace("-", "_"): v for k, v in config.items()} if isinstance(config, dict) else {}
    for flag, key, _ in SHORTHANDS:
        if launch.get(flag) is not None:
            merged[key] = launch.get(flag)
    return merged


def launch_speculation(launch: Any) -> LiveSpeculation | None:
    """The speculation a vLLM launch configures; None when it configures none (or is not a vLLM launch)."""
    if not isinstance(launch, VllmFlagSet):
        return None
    config = _config(launch)
    method = config.get("method") or ("draft_model" if config.get("model") else None)
    if method is None:
        return None
    tokens = config.get("num_speculative_tokens")
    tokens = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None
    return LiveSpeculation(SpecShape(str(method), tokens, None, tokens), None, None, source="launch")
