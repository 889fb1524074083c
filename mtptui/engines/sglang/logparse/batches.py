"""Decode and prefill batch statistics lines, read as `key: value` pairs (never by position).

Handles `Decode batch.` / `Decode batch,`, an optional ` [iter]`, trailing `, `, plain and hybrid (SWA, mamba)
pool keys and the `cuda/cpu/npu/musa graph` label; unknown keys from newer SGLang versions are ignored.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from mtptui.engines.sglang.logparse.events import blank_fields
from mtptui.engines.sglang.logparse.values import to_bool, to_float, to_int

HEAD = re.compile(r"(Decode|Prefill) batch(?: \[\d+\])?[.,] ?")

Keys = dict[str, tuple[str, Callable[[str], Any]]]

_COMMON: Keys = {
    "token usage": ("token_usage", to_float),
    "full token usage": ("token_usage", to_float),
    "mamba usage": ("mamba_usage", to_float),
    "#running-req": ("running_req", to_int),
    "#queue-req": ("queue_req", to_int),
}

DECODE_KEYS: Keys = {
    **_COMMON,
    "#token": ("tokens", to_int),
    "#full token": ("tokens", to_int),
    "accept len": ("accept_len", to_float),
    "accept rate": ("accept_rate", to_float),
    "gen throughput (token/s)": ("gen_throughput", to_float),
    **{f"{device} graph": ("graph", to_bool) for device in ("cuda", "cpu", "npu", "musa", "xpu")},
}

PREFILL_KEYS: Keys = {
    **_COMMON,
    "#new-seq": ("new_seq", to_int),
    "#new-token": ("new_token", to_int),
    "#cached-token": ("cached_token", to_int),
    "input throughput (token/s)": ("input_throughput", to_float),
}


def parse_batch(msg: str) -> tuple[str, dict[str, Any]] | None:
    """`("decode"|"prefill", fields)` for a batch statistics message, else None."""
    m = HEAD.match(msg)
    if m is None:
        return None
    if m.group(1) == "Decode":
        return "decode", read_pairs(msg[m.end():], DECODE_KEYS, blank_fields("decode"))
    return "prefill", read_pairs(msg[m.end():], PREFILL_KEYS, blank_fields("prefill"))


def read_pairs(body: str, keys: Keys, out: dict[str, Any]) -> dict[str, Any]:
    """Fill `out` from `key: value, key: value, ` text; the last occurrence of a key wins."""
    for part in body.rstrip(", ").split(", "):
        key, sep, value = part.partition(": ")
        known = keys.get(key)
        if known is not None and sep:
            name, convert = known
            out[name] = convert(value)
    return out
