"""Speculation lines: the resolved launch (``server_args=ServerArgs(...)``) and adaptive speculative decoding.

- ``server_args``: the speculative fields of the main process's ``server_args=ServerArgs(...)`` line (values
  after resolution: NEXTN shows as EAGLE, auto draft tokens as their number; ``adaptive`` false when SGLang
  turned it off).
- ``spec_adaptive``: ``AdaptiveSpeculativeParams initialized: steps=3, candidate_steps=[1, 3, 7]`` (the worker
  starts adapting) or ``speculative_adaptive disabled: REASON. Falling back ...`` (it will not: ``disabled``).
- ``spec_switch``: ``Switch adaptive runtime state: steps 3 -> 1, draft_tokens 4 -> 2``.
Texts of both supported releases (mtptui.engines.sglang.surface).
"""

from __future__ import annotations

import re
from typing import Any

Parsed = tuple[str, dict[str, Any]] | None

SERVER_ARGS = "server_args=ServerArgs("
ARGS = {"speculative_algorithm": "algorithm", "speculative_num_steps": "steps", "speculative_eagle_topk": "topk",
        "speculative_num_draft_tokens": "draft_tokens", "speculative_adaptive": "adaptive"}
ARG = re.compile(r"(?:\(|, )(speculative_(?:algorithm|num_steps|eagle_topk|num_draft_tokens|adaptive))="
                 r"('[^']*'|None|True|False|-?\d+)(?=[,)])")
INIT = re.compile(r"AdaptiveSpeculativeParams initialized: steps=(\d+), candidate_steps=\[([\d, ]*)\]")
SWITCH = re.compile(r"Switch adaptive runtime state: steps (\d+) -> (\d+), draft_tokens (\d+) -> (\d+)")
DISABLED = re.compile(r"speculative_adaptive disabled: (.*?)\. Falling back to static speculative params\.")


def _value(text: str) -> object:
    if text.startswith("'"):
        return text[1:-1]
    return {"None": None, "True": True, "False": False}.get(text, text if not text.lstrip("-").isdigit() else int(text))


def server_args(msg: str) -> Parsed:
    if not msg.startswith(SERVER_ARGS):
        return None
    fields: dict[str, Any] = dict.fromkeys(ARGS.values())
    for name, value in ARG.findall(msg):
        fields[ARGS[name]] = _value(value)
    return "server_args", fields


def adaptive_disabled(msg: str) -> Parsed:
    m = DISABLED.match(msg)
    return ("spec_adaptive", {"steps": None, "candidates": None, "disabled": m.group(1)}) if m else None


def adaptive_init(msg: str) -> Parsed:
    m = INIT.match(msg)
    if m is None:
        return None
    candidates = [int(word) for word in m.group(2).split(",") if word.strip()]
    return "spec_adaptive", {"steps": int(m.group(1)), "candidates": candidates, "disabled": None}


def adaptive_switch(msg: str) -> Parsed:
    m = SWITCH.match(msg)
    if m is None:
        return None
    before, after, draft_before, draft_after = (int(g) for g in m.groups())
    return "spec_switch", {"from_steps": before, "to_steps": after, "from_draft_tokens": draft_before,
                           "to_draft_tokens": draft_after}
