"""Prometheus metrics of the simulated server (``/metrics`` with --enable-metrics), SGLang's ``sglang:`` names.

A private CollectorRegistry per server. Scheduler gauges change when a batch-stats line is logged (as in
SGLang); token counters and latency histograms change as requests progress.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

_GAUGES = {
    "num_running_reqs": "The number of running requests.",
    "num_queue_reqs": "The number of requests in the waiting queue.",
    "gen_throughput": "The generation throughput (token/s).",
    "token_usage": "The token usage.",
    "num_used_tokens": "The number of used tokens.",
    "cache_hit_rate": "The prefix cache hit rate.",
    "spec_accept_length": "Mean acceptance length of speculative decoding (accepted drafts + bonus token per forward).",
    "spec_accept_rate": "Speculative acceptance rate (`accepted drafts / proposed drafts` in batch).",
    "full_token_usage": "The token usage for full attention layers.",
    "mamba_usage": "The token usage for Mamba layers.",
    "kv_used_tokens": "The number of used tokens in the KV pool.",
    "kv_available_tokens": "The number of available tokens in the KV pool.",
    "max_total_num_tokens": "Maximum total number of tokens in the KV pool.",
    "context_len": "The context length of the model.",
    "is_cuda_graph": "Whether the batch is using CUDA graph.",
    "num_retracted_reqs": "The number of retracted requests.",
}
_NEW_GAUGES = {
    "spec_num_steps": "Currently active speculative_num_steps.",
    "spec_num_draft_tokens": "Currently active speculative_num_draft_tokens.",
    "weight_memory_usage_gb": "Weight memory usage in GB.",
    "kv_cache_memory_usage_gb": "KV cache memory usage in GB.",
}
_LATENCY_BUCKETS = (0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 15.0,
                    20.0, 30.0, 60.0, 120.0, 300.0)
_ITL_BUCKETS = (0.002, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5,
                0.75, 1.0, 2.0)


class SimMetrics:
    """The registry and the series the engine updates."""

    def __init__(self, model_name: str, version: str) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.new = version == "0.5.23"
        sched = {"model_name": model_name, "engine_type": "unified", "tp_rank": "0", "pp_rank": "0"}
        if self.new:
            sched["moe_ep_rank"] = "0"
        self._sched_labels = sched
        self._tok_labels = {"model_name": model_name, "engine_type": "unified"}
        gauges = {**_GAUGES, **(_NEW_GAUGES if self.new else {})}
        self.gauges = {name: self._gauge(name, doc) for name, doc in gauges.items()}
        self.counters = {name: self._counter(name, doc) for name, doc in (
            ("prompt_tokens", "Number of prefill tokens processed."),
            ("generation_tokens", "Number of generation tokens processed."),
            ("cached_tokens", "Number of cached prompt tokens."),
            ("num_requests", "Number of requests processed."),
            ("num_aborted_requests", "Number of requests aborted."))}
        if self.new:
            self.counters["spec_verify_calls"] = Counter(
                "sglang:spec_verify_calls", "Number of speculative verify calls.", list(sched),
                registry=self.registry).labels(**sched)
        self.ttft = self._histogram("time_to_first_token_seconds", "Histogram of time to first token in seconds.")
        self.itl = self._histogram("inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                                   _ITL_BUCKETS)
        self.e2e = self._histogram("e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds")
        self.queue = self._histogram("queue_time_seconds", "Histogram of queueing time in seconds.")

    def _gauge(self, name: str, doc: str):
        labels = self._sched_labels
        return Gauge(f"sglang:{name}", doc, list(labels), registry=self.registry,
                     multiprocess_mode="mostrecent").labels(**labels)

    def _counter(self, name: str, doc: str):
        labels = self._tok_labels
        return Counter(f"sglang:{name}", doc, list(labels), registry=self.registry).labels(**labels)

    def _histogram(self, name: str, doc: str, buckets=_LATENCY_BUCKETS):
        labels = self._tok_labels
        return Histogram(f"sglang:{name}", doc, list(labels), buckets=buckets,
                         registry=self.registry).labels(**labels)

    def set(self, **values: float) -> None:
        for name, value in values.items():
            if name in self.gauges and value is not None:
                self.gauges[name].set(value)

    def inc(self, name: str, amount: float = 1) -> None:
        if name in self.counters and amount:
            self.counters[name].inc(amount)

    def render(self) -> bytes:
        return generate_latest(self.registry)
