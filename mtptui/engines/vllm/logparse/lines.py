"""Classify one vLLM message (the text after the prefix) into event kinds; dispatch on its first character."""

from __future__ import annotations

import re
from typing import Any, Callable

from mtptui.engines.vllm.logparse import serving, startup
from mtptui.engines.sglang.logparse.lines import http_access

Parsed = tuple[str, dict[str, Any]] | None
Matcher = Callable[[str], Parsed]

# uvicorn's own lines, unprefixed; its access line is read as SGLang's (both servers run uvicorn)
UVICORN = re.compile(r"(INFO|WARNING|ERROR|CRITICAL): +")


BY_FIRST_CHAR: dict[str, tuple[Matcher, ...]] = {
    "E": (serving.engine_stats, serving.spec_decode),
    "S": (serving.spec_decode, startup.engine_ready, startup.weights),
    "A": (serving.engine_stats, startup.kv_cache, startup.engine_ready),
    "L": (startup.weights, startup.progress),
    "M": (startup.weights, startup.kv_cache),
    "G": (startup.kv_cache, startup.graph_end),
    "C": (startup.kv_cache, startup.progress),
    "n": (startup.launch_args,),
    "R": (startup.route, startup.resolved),
    "U": (startup.resolved,),
    "I": (startup.engine_config,),
    "i": (startup.engine_ready,),
    "v": (startup.banner,),
    " ": (startup.banner,),
    "█": (startup.banner,),
}
UNPREFIXED: tuple[Matcher, ...] = (startup.progress, serving.engine_stats)


def classify(msg: str, level: str | None) -> Parsed:
    """(kind, fields) for a prefixed message, or None; the level decides warnings and errors."""
    for matcher in BY_FIRST_CHAR.get(msg[:1], ()):
        parsed = matcher(msg)
        if parsed is not None:
            return parsed
    if level == "WARNING":
        return "warning", {"message": msg.rstrip()}
    if level in ("ERROR", "CRITICAL"):
        return "error", {"message": msg.rstrip(), "traceback": None}
    return None


def classify_bare(msg: str) -> Parsed:
    """(kind, fields) for a line without vLLM's prefix: uvicorn's lines, tqdm bars, a crash report."""
    if msg.startswith(("INFO:", "WARNING:", "ERROR:", "CRITICAL:")):
        if (access := http_access(msg)) is not None:
            return access
        word = UVICORN.match(msg)
        rest = msg[word.end():] if word else msg
        return classify(rest, word.group(1) if word else None)
    for matcher in UNPREFIXED:
        parsed = matcher(msg)
        if parsed is not None:
            return parsed
    return None
