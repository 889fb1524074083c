"""Prometheus metrics of the simulated server (``/metrics`` with --enable-metrics), the release's own families.

The families, kinds, labels and buckets come from the version's surface (mtptui.engines.sglang.surface), so a
0.5.12.post1 server has no ``sglang:spec_verify_calls_total`` and no ``is_streaming`` label. As in SGLang:
scheduler gauges change when a batch-stats line is logged (and every 30 s while idle), token and request
counters only when a request finishes, and the exposition is the multiprocess one (no ``*_created`` series,
content type version 0.0.4). A private CollectorRegistry per server.
"""

from __future__ import annotations

from typing import TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics, generate_latest
from prometheus_client.metrics_core import Metric as Family

from mtptui.engines.sglang.surface import Surface
from mtptui.engines.sglang.surface_metrics import Metric

_DOCS = {
    "num_running_reqs": "The number of running requests.",
    "num_queue_reqs": "The number of requests in the waiting queue.",
    "gen_throughput": "The generation throughput (token/s).",
    "token_usage": "The token usage.",
    "num_used_tokens": "The number of used tokens.",
    "cache_hit_rate": "The prefix cache hit rate.",
    "spec_accept_length": "Mean acceptance length of speculative decoding (accepted drafts + bonus token per forward).",
    "spec_accept_rate": "Speculative acceptance rate (`accepted drafts / proposed drafts` in batch).",
    "prompt_tokens": "Number of prefill tokens processed.",
    "generation_tokens": "Number of generation tokens processed.",
    "num_requests": "Number of requests processed.",
    "time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "inter_token_latency_seconds": "Histogram of inter-token latency in seconds.",
    "e2e_request_latency_seconds": "Histogram of End-to-end request latency in seconds",
    "queue_time_seconds": "Histogram of queueing time in seconds.",
}
_Kind = TypeVar("_Kind", Gauge, Counter, Histogram)


class SimMetrics:
    """The registry and the families the engine updates, by short name (``generation_tokens``)."""

    def __init__(self, model_name: str, surface: Surface) -> None:
        # SGLang exposes its multiprocess registry: no *_created series (prometheus_client leaves this unannotated)
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.surface = surface
        self.registry = CollectorRegistry(auto_describe=True)
        self._values = {"model_name": model_name, "engine_type": "unified", "tp_rank": "0", "pp_rank": "0",
                        "moe_ep_rank": "0", "cache_source": "device"}
        self._metrics = {m.short: m for m in surface.metrics.values()}
        self._gauges: dict[str, Gauge] = {}
        self._counters: dict[str, Counter] = {}
        self._histograms: dict[str, Histogram] = {}
        for metric in self._metrics.values():  # in the surface's order: the exposition's order
            self._register(metric)

    def _register(self, metric: Metric) -> None:
        name = metric.name[:-len("_total")] if metric.kind == "counter" else metric.name  # the client adds _total
        doc, labels = _DOCS.get(metric.short, metric.short.replace("_", " ") + "."), list(metric.labels)
        if metric.kind == "gauge":
            self._gauges[metric.short] = Gauge(name, doc, labels, registry=self.registry,
                                               multiprocess_mode="mostrecent")
        elif metric.kind == "counter":
            self._counters[metric.short] = Counter(name, doc, labels, registry=self.registry)
        elif metric.kind == "histogram":
            buckets = metric.buckets or Histogram.DEFAULT_BUCKETS
            self._histograms[metric.short] = Histogram(name, doc, labels, registry=self.registry, buckets=buckets)
        else:
            raise ValueError(f"unknown metric kind {metric.kind!r} of {metric.name}")

    def _child(self, families: dict[str, _Kind], short: str, streaming: bool) -> _Kind | None:
        """The labelled series of ``short``; None when this release has no such family."""
        metric = self._metrics.get(short)
        if metric is None:
            return None
        values = {label: ("true" if streaming else "false") if label == "is_streaming" else self._values[label]
                  for label in metric.labels}
        return families[short].labels(**values)

    def set(self, **values: float | None) -> None:
        for name, value in values.items():
            child = self._child(self._gauges, name, False)
            if child is not None and value is not None:
                child.set(value)

    def inc(self, name: str, amount: float = 1, *, streaming: bool = False) -> None:
        child = self._child(self._counters, name, streaming)
        if child is not None and amount:
            child.inc(amount)

    def observe(self, name: str, value: float, *, streaming: bool = False) -> None:
        child = self._child(self._histograms, name, streaming)
        if child is not None:
            child.observe(value)

    def collect(self) -> list[Family]:
        """The families that have a sample: a multiprocess registry knows nothing of a series never written."""
        return [family for family in self.registry.collect() if family.samples]

    def render(self) -> bytes:
        return generate_latest(self)
