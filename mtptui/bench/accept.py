"""The accept length a run reports, and the source it came from (``accept length 1.74 (server log)``).

In order, the first source that has a figure (sglang-api-by-version.md §1):

1. ``sglext`` — per request, ``sglext.spec_tokens_details`` (0.5.23 and later): Σ completion tokens / Σ verify
   steps;
2. ``metrics`` — ``Δ generation_tokens_total / Δ spec_verify_calls_total`` over the run (0.5.23, --enable-metrics);
3. ``server log`` — the decode-log lines that arrived during the run (a host's log, followed through its session);
4. ``spec_accept_length gauge`` — the gauge's new values seen during the run (--enable-metrics);
5. ``server_info average`` — ``/server_info`` ``avg_spec_accept_length``: the server's lifetime average, not
   the run's.

Without any, ``note`` says why, from what the version's surface says it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean
from typing import Final, Literal, TypedDict

from mtptui.engines.sglang.surface import known_surface

AcceptSource = Literal["sglext", "metrics", "server log", "spec_accept_length gauge", "server_info average"]
SGLEXT: Final = "sglext"
METRICS: Final = "metrics"
LOG: Final = "server log"
GAUGE: Final = "spec_accept_length gauge"
SERVER_INFO: Final = "server_info average"


class AcceptFields(TypedDict):
    """The accept-length keys of a run's summary (Bench JSON)."""

    accept_len: float | None
    accept_len_source: AcceptSource | None
    accept_len_note: str | None
    accept_len_sglext: float | None
    accept_len_metrics: float | None
    accept_len_log: float | None
    accept_len_gauge: float | None
    accept_len_server_info: float | None


@dataclass
class AcceptEvidence:
    """What a run could read about acceptance; None (or empty) where a source had nothing."""

    speculative: bool
    version: str | None = None
    sglext: float | None = None
    counters: float | None = None
    log: float | None = None
    followed_log: bool = False
    gauge: list[float] = field(default_factory=list)
    server_info: float | None = None
    metrics_enabled: bool = False
    engine: str | None = None  # the server's engine (a registry name; None: not recognised, said as SGLang)

    def candidates(self) -> list[tuple[float | None, AcceptSource]]:
        gauge = fmean(self.gauge) if self.gauge else None
        return [(self.sglext, SGLEXT), (self.counters, METRICS), (self.log, LOG), (gauge, GAUGE),
                (self.server_info, SERVER_INFO)]


def choose(evidence: AcceptEvidence) -> tuple[float | None, AcceptSource | None, str | None]:
    """(accept length, its source, why there is none)."""
    if not evidence.speculative:
        return None, None, "the server runs without speculative decoding"
    for value, source in evidence.candidates():
        if value is not None:
            return value, source, None
    return None, None, why_none(evidence)


def why_none(evidence: AcceptEvidence) -> str:
    surface = known_surface(evidence.version)
    from mtptui.engines.registry import ENGINES, engine

    label = engine(evidence.engine if evidence.engine in ENGINES else None).label
    version = f"{label} {evidence.version}" if evidence.version else "the server"
    reasons = [f"{version} sends no per-request acceptance (sglext)" if surface and not surface.spec_in_sglext
               else "no request reported its acceptance (sglext)"]
    if not evidence.metrics_enabled:
        reasons.append("/metrics is off (--enable-metrics)")
    elif surface and not surface.has_metric("sglang:spec_verify_calls_total"):
        reasons.append(f"{version} has no spec_verify_calls_total counter")
    reasons.append("no decode-log line arrived during the run" if evidence.followed_log
                   else "no server log was followed (bench a host instead of --url)")
    return "no accept length: " + "; ".join(reasons)


def summary_fields(evidence: AcceptEvidence) -> AcceptFields:
    """The run summary's accept-length keys: the chosen figure, its source, the note, and each source's value."""
    value, source, note = choose(evidence)
    return {"accept_len": value, "accept_len_source": source, "accept_len_note": note,
            "accept_len_sglext": evidence.sglext, "accept_len_metrics": evidence.counters,
            "accept_len_log": evidence.log, "accept_len_gauge": fmean(evidence.gauge) if evidence.gauge else None,
            "accept_len_server_info": evidence.server_info}
