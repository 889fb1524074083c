"""Sanity warnings about a run's measurement, one sentence each."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Sequence

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


def run_warnings(requests: Sequence["RequestResult"], server: "ServerInfo", metrics_enabled: bool) -> list[str]:
    """What a reader of the numbers should know: failures, approximate token counts, missing accept length."""
    ok = [r.metrics for r in requests if r.metrics.ok]
    warnings = _failures(requests) + usage_warnings(ok)
    if server.speculative and ok and not any(m.verify_ct for m in ok):
        source = "/metrics counters" if metrics_enabled else "nowhere (start the server with --enable-metrics)"
        warnings.append(f"the server returned no spec_tokens_details: accept length comes from {source}")
    return warnings
