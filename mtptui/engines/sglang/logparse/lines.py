"""Classify one message (the text after the log prefix) into an event kind and its fields.

Dispatch is on the first character before any regex, so the frequent decode and access lines reach their
matcher after one dict look-up.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from mtptui.engines.sglang.logparse import problems, requests, speculation, startup
from mtptui.engines.sglang.logparse.batches import parse_batch

Parsed = tuple[str, dict[str, Any]] | None
Matcher = Callable[[str], Parsed]

# uvicorn access: `INFO:     127.0.0.1:40052 - "POST /v1/chat/completions HTTP/1.1" 200 OK`
ACCESS = re.compile(r'INFO: +(\S+) - "([A-Z]+) (\S+)(?: [^"]*)?" (\d{3})\b')
READY = "The server is fired up and ready to roll!"


def http_access(msg: str) -> Parsed:
    m = ACCESS.match(msg)
    if m is None:
        return None
    client, method, path, status = m.groups()
    return "http_access", {"client": client, "method": method, "path": path, "status": int(status)}


def server_ready(msg: str) -> Parsed:
    return ("server_ready", {}) if msg.startswith(READY) else None


BY_FIRST_CHAR: dict[str, tuple[Matcher, ...]] = {
    "D": (parse_batch,),
    "P": (parse_batch, startup.kv_cache),
    "I": (http_access,),
    "L": (startup.weight_load, startup.shard_progress),
    "M": (startup.mamba_cache, startup.memory_pool_end, startup.shard_progress),
    "K": (startup.kv_cache,),
    "C": (startup.graph_capture,),
    "m": (startup.capacity,),
    "T": (server_ready,),
    "F": (requests.request_finish,),
    "{": (requests.request_finish,),
    "s": (speculation.server_args, speculation.adaptive_disabled),
    "A": (speculation.adaptive_init,),
    "S": (speculation.adaptive_switch,),
}


def labelled_kv_cache(msg: str) -> Parsed:
    """`<label> KV Cache is allocated.` (a pool with an allocation label)."""
    return startup.kv_cache(msg) if "KV Cache is allocated" in msg else None


FALLBACK: tuple[Matcher, ...] = (problems.problem, labelled_kv_cache)


def classify(msg: str) -> Parsed:
    """(kind, fields) for a message, or None when it matches no kind of the contract."""
    for matcher in BY_FIRST_CHAR.get(msg[:1], ()):
        parsed = matcher(msg)
        if parsed is not None:
            return parsed
    for matcher in FALLBACK:
        parsed = matcher(msg)
        if parsed is not None:
            return parsed
    return None
