"""A tune's grid over a vLLM profile: ``tokens=1,2,3,4 method=ngram`` are keys of ``--speculative-config``
(``num_speculative_tokens``, ``method``; ``steps`` is ``tokens``: vLLM drafts as many tokens as steps), any other
key a ``vllm serve`` flag by its long name. ``auto`` removes the key, so vLLM chooses."""

from __future__ import annotations

import json
from typing import Any

KEYS = {"tokens": "num_speculative_tokens", "steps": "num_speculative_tokens", "method": "method"}
SPEC = "speculative-config"


def spec_config(value: Any) -> dict[str, Any]:
    """A profile's --speculative-config (a TOML table or a JSON string) as a dict: {} when it is neither."""
    if isinstance(value, dict):
        return dict(value)
    try:
        found = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        found = None
    return found if isinstance(found, dict) else {}


def derive(profile: Any, values: list[tuple[str, Any]], auto: str) -> Any:
    """The profile with the grid point's values (``values``: (key as written, value))."""
    flags, config = dict(profile.flags), spec_config(profile.flags.get(SPEC))
    for key, value in values:
        target, where = (KEYS[key], config) if key in KEYS else (key, flags)
        if value == auto:
            where.pop(target, None)
        else:
            where[target] = value
    if config:
        flags[SPEC] = json.dumps(config)
    return profile.model_copy(update={"flags": flags})
