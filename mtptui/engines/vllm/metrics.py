"""Read vLLM's `/metrics` (Prometheus text) into the figures mtptui shows, and speculation between two reads.

Counters and gauges are summed over their label sets (engines, models), the per-position accepted-token counter
per `position` (histograms are only named: nothing here reads them). Speculation is vLLM's own arithmetic over an
interval (what its SpecDecoding log line prints): accept length = 1 + Δaccepted / Δdrafts, acceptance rate =
Δaccepted / Δdraft tokens, position k = Δaccepted at k / Δdrafts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mtptui.engines.vllm import api

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric


@dataclass
class VllmMetrics:
    """One read of `/metrics`: totals by family (counters without `_total`), every `vllm:` family's name."""

    values: dict[str, float] = field(default_factory=dict)
    accepted_per_position: dict[int, float] = field(default_factory=dict)
    finished_by_reason: dict[str, float] = field(default_factory=dict)  # request_success by `finished_reason`
    families: set[str] = field(default_factory=set)

    def get(self, family: str) -> float | None:
        return self.values.get(family)

    @property
    def kv_usage(self) -> float | None:
        """KV cache usage in 0-1 (`kv_cache_usage_perc`, or the older `gpu_cache_usage_perc`)."""
        found = self.values.get(api.KV_USAGE)
        return found if found is not None else self.values.get(api.KV_USAGE_OLD)


def parse_metrics(text: str) -> VllmMetrics:
    """The `vllm:` families of a Prometheus text exposition; one clear sentence if it is not one."""
    from prometheus_client.parser import text_string_to_metric_families

    from mtptui.errors import UserError

    out = VllmMetrics()
    try:
        families = list(text_string_to_metric_families(text))
    except (ValueError, TypeError, IndexError) as exc:
        raise UserError(f"the server's /metrics is not Prometheus text ({exc})") from None
    for family in families:
        if family.name.startswith("vllm:"):
            out.families.add(family.name)
            _add_family(out, family)
    return out


def _add_family(out: VllmMetrics, family: Metric) -> None:
    name, kind = family.name, family.type
    for sample in family.samples:
        if kind in ("counter", "gauge") and not sample.name.endswith("_created"):
            if name == api.ACCEPTED_PER_POS:
                position = int(sample.labels.get("position", -1))
                out.accepted_per_position[position] = out.accepted_per_position.get(position, 0.0) + sample.value
            else:
                out.values[name] = out.values.get(name, 0.0) + sample.value
                if name == api.REQUEST_SUCCESS:
                    reason = str(sample.labels.get("finished_reason", ""))
                    out.finished_by_reason[reason] = out.finished_by_reason.get(reason, 0.0) + sample.value


@dataclass(frozen=True)
class Speculation:
    """Speculative decoding over an interval between two reads (None where nothing was drafted)."""

    drafts: float
    draft_tokens: float
    accepted: float
    accept_len: float | None
    accept_rate: float | None
    per_position: list[float] | None


def speculation(before: VllmMetrics | None, after: VllmMetrics) -> Speculation | None:
    """The interval's speculation (``before`` None: since the server started); None without speculation."""
    if after.get(api.DRAFTS) is None:
        return None

    def delta(family: str) -> float:
        return (after.get(family) or 0.0) - ((before.get(family) or 0.0) if before else 0.0)

    drafts, tokens, accepted = delta(api.DRAFTS), delta(api.DRAFT_TOKENS), delta(api.ACCEPTED)
    positions = sorted(after.accepted_per_position)
    per_position = [(after.accepted_per_position[k] - (before.accepted_per_position.get(k, 0.0) if before else 0.0))
                    / drafts for k in positions] if drafts else None
    return Speculation(drafts, tokens, accepted, 1 + accepted / drafts if drafts else None,
                       accepted / tokens if tokens else None, per_position)


def accept_counters(text: str) -> tuple[float, float] | None:
    """(drafts + accepted tokens, drafts) in a `/metrics` text, summed over label sets: over a window, the ratio
    of their differences is the accept length (1 + Δaccepted / Δdrafts). None without speculation counters (a
    server launched without a speculative config has none), or when the text is not Prometheus text."""
    from mtptui.errors import UserError

    if api.DRAFTS not in text:
        return None
    try:
        read = parse_metrics(text)
    except UserError:
        return None
    drafts, accepted = read.get(api.DRAFTS), read.get(api.ACCEPTED)
    if drafts is None or accepted is None:
        return None
    return drafts + accepted, drafts
