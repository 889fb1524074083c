"""vLLM's periodic serving lines (every ~10 s while busy): engine stats and speculative-decoding metrics.

`Engine 000: Avg prompt throughput: 7.6 tokens/s, Avg generation throughput: 66.4 tokens/s, Running: 0 reqs,
Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%` (optional parts: `Deferred`,
`Preemptions`, `External prefix cache hit rate`; older builds no `Engine NNN: ` and `Pending` for waiting).
`SpecDecoding metrics: Mean acceptance length: 3.68, Accepted throughput: 6.00 tokens/s, Drafted throughput:
6.26 tokens/s, Accepted: 483 tokens, Drafted: 504 tokens, Per-position acceptance rate: 0.978, 0.872, 0.833,
Avg Draft acceptance rate: 95.8%` (older builds put the rate first as `Draft acceptance rate`; newer ones may add
`Current speculative depth: K`). Each figure is read on its own, so their order does not matter.
"""

from __future__ import annotations

import re
from typing import Any

from mtptui.engines.sglang.logparse.values import to_float, to_int

Parsed = tuple[str, dict[str, Any]] | None

ENGINE = re.compile(r"Engine (\d+): ")
STAT_FIGURES = {
    "prompt_throughput": re.compile(r"Avg prompt throughput: ([\d.]+) tokens/s"),
    "gen_throughput": re.compile(r"Avg generation throughput: ([\d.]+) tokens/s"),
    "running_req": re.compile(r"Running: (\d+) reqs"),
    "queue_req": re.compile(r"(?:Waiting|Pending): (\d+) reqs"),
    "deferred_req": re.compile(r"Deferred: (\d+) reqs"),
    "preemptions": re.compile(r"Preemptions: (\d+)"),
    "token_usage": re.compile(r"(?:GPU|CPU|[A-Z]+) KV cache usage: ([\d.]+)%"),
    "prefix_cache_hit_rate": re.compile(r"(?<!External )Prefix cache hit rate: ([\d.]+)%"),
    "external_prefix_cache_hit_rate": re.compile(r"External prefix cache hit rate: ([\d.]+)%"),
}
PERCENT = frozenset({"token_usage", "prefix_cache_hit_rate", "external_prefix_cache_hit_rate"})
INTEGER = frozenset({"running_req", "queue_req", "deferred_req", "preemptions"})
KV_DEVICE = re.compile(r"(\w+(?: \+ host)?) KV cache usage: ")

SPEC_FIGURES = {
    "accept_len": re.compile(r"Mean acceptance length: ([\d.]+)"),
    "accepted_throughput": re.compile(r"Accepted throughput: ([\d.]+) tokens/s"),
    "drafted_throughput": re.compile(r"Drafted throughput: ([\d.]+) tokens/s"),
    "accepted_tokens": re.compile(r"Accepted: (\d+) tokens"),
    "drafted_tokens": re.compile(r"Drafted: (\d+) tokens"),
    "accept_rate": re.compile(r"(?:Avg )?Draft acceptance rate: ([\d.]+|nan)%"),
    "depth": re.compile(r"Current speculative depth: (\d+)"),
}
PER_POSITION = re.compile(r"Per-position acceptance rate: ((?:[\d.]+|nan)(?:, (?:[\d.]+|nan))*)")


def _figure(pattern: re.Pattern[str], msg: str, name: str) -> Any:
    found = pattern.search(msg)
    if found is None:
        return None
    if name in INTEGER or name in ("accepted_tokens", "drafted_tokens", "depth"):
        return to_int(found.group(1))
    value = to_float(found.group(1))
    if value is not None and (name in PERCENT or name == "accept_rate"):
        value = round(value / 100, 6)
    return value


def engine_stats(msg: str) -> Parsed:
    engine = ENGINE.match(msg)
    body = msg[engine.end():] if engine else msg
    if not body.startswith("Avg prompt throughput: "):
        return None
    fields: dict[str, Any] = {"engine_index": int(engine.group(1)) if engine else None}
    for name, pattern in STAT_FIGURES.items():
        fields[name] = _figure(pattern, body, name)
    if fields["prompt_throughput"] is None and fields["gen_throughput"] is None:
        return None  # the words without the figures: not vLLM's line
    device = KV_DEVICE.search(body)
    fields["kv_device"] = device.group(1) if device else None
    return "engine_stats", fields


def spec_decode(msg: str) -> Parsed:
    engine = ENGINE.match(msg)
    body = msg[engine.end():] if engine else msg
    if not body.startswith("SpecDecoding metrics: "):
        return None
    fields = {name: _figure(pattern, body, name) for name, pattern in SPEC_FIGURES.items()}
    found = PER_POSITION.search(body)
    fields["per_position"] = [to_float(part) for part in found.group(1).split(", ")] if found else None
    return "spec_decode", fields
