"""Startup lines: shard bars, weight loading, KV/mamba pools, capacity, CUDA-graph capture (all versions)."""

from __future__ import annotations

import re
from typing import Any

from mtptui.engines.sglang.logparse.events import blank_fields
from mtptui.engines.sglang.logparse.values import first_word, gb, to_float, to_int

Parsed = tuple[str, dict[str, Any]] | None

# tqdm: SGLang's BAR_FORMAT (`desc: 25% Completed | 1/4 [...]`) and tqdm's default (`desc:  25%|██▌ | 1/4 [...]`).
SHARD = re.compile(r"((?:Multi-thread l|L)oading [^:|\r\n]{1,120}?):\s*(\d{1,3})%"
                   r"(?: Completed \||\|[^|]*\|) (\d+)/(\d+)")
CAPTURING = re.compile(r"Capturing batches(?: \((?:bs=(\d+) ?)?(?:avail_mem=([\d.]+) ?GB)?\))?:\s*\d{1,3}%\|[^|]*\| "
                       r"(\d+)/(\d+)")
GRAPH = re.compile(r"Capture [\w ]{0,60}?graph (begin|end)\.")
AVAIL = re.compile(r"avail mem=([\d.]+) ?GB")
MEM_USAGE = re.compile(r"mem usage=([\d.]+) ?GB")
ELAPSED = re.compile(r"(?:Time elapsed: |elapsed=)([\d.]+) ?s")
KV_HEAD = re.compile(r"(?:[\w-]+ ){0,3}KV Cache is allocated\. "
                     r"|Post-capture KV sizing: (?:draft )?KV cache allocated\. ")
MAMBA_SIZES = re.compile(r"(?:^|[ ,])(conv_state|ssm_state) size: ([\d.]+) ?GB")
DEFERRED = re.compile(r"Committed real weights after CUDA graph capture in ([\d.]+) s")


def _search_float(pattern: re.Pattern[str], text: str) -> float | None:
    m = pattern.search(text)
    return to_float(m.group(1)) if m else None


def _eq_pairs(body: str) -> dict[str, str]:
    """`a=1 s, type=X, avail mem=3 GB.` → {"a": "1 s", "type": "X", "avail mem": "3 GB"}; later keys win."""
    pairs = {}
    for part in body.rstrip(". ").split(", "):
        key, sep, value = part.partition("=")
        if sep:
            pairs[key.strip()] = value
    return pairs


def shard_progress(msg: str) -> Parsed:
    m = SHARD.match(msg)
    if m is None:
        return None
    desc, percent, done, total = m.groups()
    return "shard_progress", {"desc": desc, "done": int(done), "total": int(total), "percent": int(percent)}


def weight_load(msg: str) -> Parsed:
    if msg.startswith("Load weight begin."):
        return "weight_load_begin", {"avail_mem_gb": _search_float(AVAIL, msg)}
    if not msg.startswith("Load weight end."):
        return None
    fields = blank_fields("weight_load_end")
    deferred = DEFERRED.search(msg)
    if deferred:
        fields["elapsed_s"] = to_float(deferred.group(1))
        return "weight_load_end", fields
    pairs = _eq_pairs(msg[16:])
    fields["model_type"] = pairs.get("type") or None
    fields["dtype"] = pairs.get("dtype") or None
    for key, name in (("elapsed", "elapsed_s"), ("avail mem", "avail_mem_gb"), ("mem usage", "mem_usage_gb")):
        if key in pairs:
            fields[name] = to_float(first_word(pairs[key]))
    return "weight_load_end", fields


def _dtype(text: str) -> str | None:
    return text.strip() or None


KV_KEYS = {"dtype": ("dtype", _dtype), "#tokens": ("tokens", to_int), "K size": ("k_size_gb", gb),
           "V size": ("v_size_gb", gb), "KV size": ("kv_size_gb", gb)}


def kv_cache(msg: str) -> Parsed:
    m = KV_HEAD.match(msg)
    if m is None:
        return None
    fields = blank_fields("kv_cache")
    for part in msg[m.end():].rstrip(". ").split(", "):
        key, sep, value = part.partition(": ")
        known = KV_KEYS.get(key)
        if known is not None and sep:
            fields[known[0]] = known[1](value)
    return "kv_cache", fields


def mamba_cache(msg: str) -> Parsed:
    if not msg.startswith("Mamba Cache is allocated."):
        return None
    fields = blank_fields("mamba_cache")
    size = re.search(r"max_mamba_cache_size: (\d+)", msg)
    fields["max_size"] = int(size.group(1)) if size else None
    for name, value in MAMBA_SIZES.findall(msg):
        fields[f"{name}_gb"] = to_float(value)
    return "mamba_cache", fields


def memory_pool_end(msg: str) -> Parsed:
    if not msg.startswith("Memory pool end."):
        return None
    return "memory_pool_end", {"avail_mem_gb": _search_float(AVAIL, msg)}


def capacity(msg: str) -> Parsed:
    if not msg.startswith("max_total_num_tokens="):
        return None
    pairs = _eq_pairs(msg)
    fields = blank_fields("capacity")
    for name in ("max_total_num_tokens", "chunked_prefill_size", "max_prefill_tokens", "max_running_requests",
                 "context_len"):
        if name in pairs:
            fields[name] = to_int(pairs[name].strip())
    mem = pairs.get("available_gpu_mem", pairs.get("available_cpu_mem"))
    fields["available_gpu_mem_gb"] = gb(mem) if mem is not None else None
    return "capacity", fields


def graph_capture(msg: str) -> Parsed:
    if msg.startswith("Capturing batches"):
        m = CAPTURING.match(msg)
        if m is None:
            return None
        bs, avail, done, total = m.groups()
        return "graph_capture_progress", {"bs": to_int(bs) if bs else None, "avail_mem_gb": to_float(avail or ""),
                                          "done": int(done), "total": int(total)}
    m = GRAPH.match(msg)
    if m is None:
        return None
    if m.group(1) == "begin":
        return "graph_capture_begin", {"avail_mem_gb": _search_float(AVAIL, msg)}
    return "graph_capture_end", {"elapsed_s": _search_float(ELAPSED, msg),
                                 "mem_usage_gb": _search_float(MEM_USAGE, msg),
                                 "avail_mem_gb": _search_float(AVAIL, msg)}
