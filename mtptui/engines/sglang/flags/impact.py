"""The order a diff lists flags in: what changes speculative decoding first, then memory and capacity, then the rest.

An operator reading "why is it slower" wants the acceptance-changing flags on top, then the ones that decide how
many tokens and requests fit; the rest keep the flag table's order.
"""

from __future__ import annotations

SPECULATIVE, MEMORY, OTHER = 0, 1, 2
GROUP_NAMES = {SPECULATIVE: "speculative decoding", MEMORY: "memory and capacity", OTHER: "other"}

SPECULATIVE_PREFIXES = ("--speculative-",)
SPECULATIVE_ENV = ("SPEC", "EAGLE", "MTP", "NEXTN")
MEMORY_PREFIXES = ("--mem-", "--mamba-", "--kv-cache-", "--cuda-graph-", "--swa-")
MEMORY_FLAGS = frozenset({
    "--context-length", "--max-running-requests", "--max-total-tokens", "--max-prefill-tokens",
    "--chunked-prefill-size", "--max-mamba-cache-size", "--page-size", "--tp-size", "--tensor-parallel-size",
    "--dp-size", "--data-parallel-size", "--ep-size", "--expert-parallel-size", "--disable-radix-cache",
    "--enable-hierarchical-cache", "--hicache-ratio", "--hicache-size", "--quantization", "--dtype",
})
MEMORY_ENV = ("MEM", "CACHE", "KV")


def flag_group(flag: str) -> int:
    """SPECULATIVE, MEMORY or OTHER for a canonical long flag name."""
    if flag.startswith(SPECULATIVE_PREFIXES):
        return SPECULATIVE
    if flag in MEMORY_FLAGS or flag.startswith(MEMORY_PREFIXES):
        return MEMORY
    return OTHER


def env_group(var: str) -> int:
    """The same groups for an environment variable, judged by the words in its name."""
    words = var.upper().split("_")
    if any(word in SPECULATIVE_ENV for word in words):
        return SPECULATIVE
    if any(word in MEMORY_ENV for word in words):
        return MEMORY
    return OTHER
