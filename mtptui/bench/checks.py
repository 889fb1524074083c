"""Sanity warnings about a run's measurement, one sentence each."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from mtptui.bench.metrics import RequestMetrics
    from mtptui.bench.result import RequestResult
    from mtptui.bench.server import ServerInfo


NO_USAGE = "the server sent no usage: token counts are approximate (one token per chunk counted)"
NO_CHUNK_USAGE = ("the server sent usage only at the end (no continuous_usage_stats): totals are exact, "
                  "ITL is per chunk, not per token")


def _failures(requests: Sequence["RequestResult"]) -> list[str]:
    failed = [r.metrics.error or "unknown error" for r in requests if not r.metrics.ok]
    if not failed:
        return []
    reason, count = Counter(failed).most_common(1)[0]
    return [f"{len(failed)} of {len(requests)} requests failed (most common, {count}x: {reason})"]


def usage_warnings(metrics: Sequence["RequestMetrics"]) -> list[str]:
    """A warning when the server's usage reports do not allow token-exact counts."""
    if any(m.usage_approximate for m in metrics if m.ok):
        return [NO_USAGE]
    if any(m.itl_per_chunk for m in metrics if m.ok):
        return [NO_CHUNK_USAGE]
    return []


LIFETIME_ACCEPT = "the accept length is the server's lifetime average (/server_info), not this run's"


def run_warnings(requests: Sequence["RequestResult"], server: "ServerInfo", summary: dict[str, Any]) -> list[str]:
    """What a reader of the numbers should know: failures, approximate token counts, an accept length that is
    missing or not the run's own."""
    ok = [r.metrics for r in requests if r.metrics.ok]
    warnings = _failures(requests) + usage_warnings(ok)
    if server.speculative and ok and summary.get("accept_len_note"):
        warnings.append(summary["accept_len_note"])
    elif server.speculative and ok and summary.get("accept_len_source") == "server_info average":
        warnings.append(LIFETIME_ACCEPT)
    return warnings
