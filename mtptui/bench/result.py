"""The final result of a run and its JSON form (design.md, "Bench JSON")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mtptui.bench.rate import RateSample
from mtptui.bench.metrics import RequestMetrics


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000.0


@dataclass
class RequestResult:
    """One measured request: its place in the run, the prompt it used, and what it measured."""

    index: int
    prompt: str
    metrics: RequestMetrics

    def to_json(self) -> dict[str, Any]:
        m = self.metrics
        return {
            "index": self.index, "prompt": self.prompt, "ok": m.ok, "error": m.error,
            "ttft_ms": _ms(m.ttft), "e2e_ms": _ms(m.e2e),
            "output_tokens": m.output_tokens, "reasoning_tokens": m.reasoning_tokens, "accept_len": m.accept_len,
            "ttfc_ms": _ms(m.ttfc), "tpot_ms": _ms(m.tpot), "decode_tok_s": m.decode_tok_s,
            "content_tokens": m.content_tokens, "verify_ct": m.verify_ct, "chunks": len(m.icl) + (m.ttft is not None),
            "usage_approximate": m.usage_approximate, "rid": m.rid,
        }


def sample_json(sample: RateSample) -> dict[str, Any]:
    return {"t": sample.t, "width": sample.width, "output_tok_s": sample.output_tok_s,
            "reasoning_tok_s": sample.reasoning_tok_s, "content_tok_s": sample.content_tok_s,
            "in_flight": sample.in_flight, "accept_len": sample.accept_len, "accept_from": sample.accept_from}


@dataclass
class BenchResult:
    """Fingerprint, summary, per-request results, the per-second timeline and the warnings of one run."""

    fingerprint: dict[str, Any]
    summary: dict[str, Any]
    requests: list[RequestResult]
    samples: list[RateSample] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    started_at: str = ""
    log_rates: list[float] = field(default_factory=list)  # the server log's per-request rate (steady lines)

    @property
    def metrics(self) -> list[RequestMetrics]:
        return [r.metrics for r in self.requests]

    def to_json(self) -> dict[str, Any]:
        return {
            "fingerprint": self.fingerprint,
            "summary": self.summary,
            "requests": [r.to_json() for r in self.requests],
            "timeline": [sample_json(s) for s in self.samples],
            "warnings": list(self.warnings),
            "started_at": self.started_at,
            "log_rates": list(self.log_rates),
        }
