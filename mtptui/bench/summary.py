"""Run-level figures from the per-request metrics: throughput, latency distributions, accept length."""

from __future__ import annotations

from typing import Any, Sequence

from mtptui.bench.metrics import RequestMetrics
from mtptui.bench.stats import describe, mean


def run_accept_len(metrics: Sequence[RequestMetrics]) -> float | None:
    """Σ completion tokens / Σ verify steps over the requests that reported them (verify-weighted mean)."""
    spec = [(m.output_tokens, m.verify_ct) for m in metrics if m.verify_ct]
    verify = sum(steps for _, steps in spec)
    return sum(tokens for tokens, _ in spec) / verify if verify else None


def _present(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def summarize(metrics: Sequence[RequestMetrics], duration: float) -> dict[str, Any]:
    """The `summary` object of the Bench JSON contract (plus extra keys) for requests run in `duration` s."""
    ok = [m for m in metrics if m.ok]
    tokens = sum(m.output_tokens for m in ok)
    per_second = (lambda x: x / duration) if duration > 0 else (lambda x: None)
    decode = _present([m.decode_tok_s for m in ok])
    gaps = sum(len(m.icl) for m in ok)
    return {
        "requests_ok": len(ok),
        "requests_failed": len(metrics) - len(ok),
        "duration_s": duration,
        "output_tok_s": per_second(tokens),
        "request_tok_s": mean(decode) if decode else None,
        "accept_len": run_accept_len(ok),
        "ttft_ms": describe(_present([m.ttft for m in ok]), 1000.0),
        "tpot_ms": describe(_present([m.tpot for m in ok]), 1000.0),
        "itl_ms": describe([gap for m in ok for gap in m.itl], 1000.0),
        "e2e_ms": describe(_present([m.e2e for m in ok]), 1000.0),
        "ttfc_ms": describe(_present([m.ttfc for m in ok]), 1000.0),
        "icl_ms": describe([gap for m in ok for gap in m.icl], 1000.0),
        "request_throughput": per_second(len(ok)),
        "output_tokens": tokens,
        "reasoning_tokens": sum(m.reasoning_tokens for m in ok),
        "content_tokens": sum(m.content_tokens for m in ok),
        "tokens_per_chunk": sum(len(m.itl) for m in ok) / gaps if gaps else None,
        "concurrency": per_second(sum(_present([m.e2e for m in ok]))),
        "usage_approximate": any(m.usage_approximate for m in ok),
    }
