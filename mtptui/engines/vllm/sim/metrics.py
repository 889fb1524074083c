"""`/metrics` of the simulated vLLM: vLLM's families (families.py) on a private registry, moved as vLLM moves them.

As in vLLM's PrometheusStatLogger: every labelled child exists from the start (zeros before any request); the
scheduler's gauges, the prefix-cache and speculative counters move at every engine step, token counters and the
per-step histograms with every iteration, the request histograms and `request_success` when a request finishes.
Python's process, platform and garbage-collector families are there too, as on the real server's default
registry (not prometheus-fastapi-instrumentator's `http_*` families: not simulated).
"""

from __future__ import annotations

from typing import Any

from prometheus_client import (GC_COLLECTOR, CollectorRegistry, Counter, Gauge, Histogram, PlatformCollector,
                               ProcessCollector, generate_latest)

from mtptui.engines.vllm.sim import families as fam
from mtptui.engines.vllm.sim.boot import VllmBoot

Metric = Counter | Gauge | Histogram


def _buckets(family: fam.Family, max_model_len: int) -> tuple[float, ...]:
    if family.buckets == fam.REQUEST_TOKENS:
        return fam.request_token_buckets(max_model_len)
    return tuple(float(b) for b in family.buckets or ())


class VllmMetrics:
    """The registry and one child per family (and label value), by family name."""

    def __init__(self, boot: VllmBoot) -> None:
        s = boot.settings
        self.registry = CollectorRegistry(auto_describe=True)
        for collector in (ProcessCollector(registry=None), PlatformCollector(registry=None), GC_COLLECTOR):
            self.registry.register(collector)
        self.base = {"model_name": s.served_model_name, "engine": "0"}
        self.children: dict[str, Any] = {}
        self.labelled: dict[str, dict[str, Any]] = {}
        for family in fam.families(s.speculative):
            self._add(family, s.max_model_len, s.spec_tokens)
        self._cache_info(boot)
        self.labelled["vllm:engine_sleep_state"]["awake"].set(1)

    def _add(self, family: fam.Family, max_model_len: int, spec_tokens: int) -> None:
        names = ["model_name", "engine"] if family.engine_label else ["model_name"]
        base = self.base if family.engine_label else {"model_name": self.base["model_name"]}
        labels = names + ([family.label] if family.label else [])
        metric = self._metric(family, labels, max_model_len)
        values = family.values or (tuple(str(p) for p in range(spec_tokens)) if family.label == "position" else ())
        if family.label:
            self.labelled[family.name] = {v: metric.labels(**base, **{family.label: v}) for v in values}
        else:
            self.children[family.name] = metric.labels(**base)

    def _metric(self, family: fam.Family, labels: list[str], max_model_len: int) -> Metric:
        if family.kind == "counter":
            return Counter(family.name, family.doc, labels, registry=self.registry)
        if family.kind == "gauge":
            return Gauge(family.name, family.doc, labels, registry=self.registry)
        return Histogram(family.name, family.doc, labels, registry=self.registry,
                         buckets=_buckets(family, max_model_len))

    def _cache_info(self, boot: VllmBoot) -> None:
        info = cache_config_info(boot)
        gauge = Gauge(fam.CACHE_CONFIG_INFO, "Information of the LLMEngine CacheConfig", list(info),
                      registry=self.registry)
        gauge.labels(**info).set(1)

    def inc(self, name: str, amount: float, label: str | None = None) -> None:
        if amount:
            child = self.labelled[name][label] if label is not None else self.children[name]
            child.inc(amount)

    def set(self, name: str, value: float, label: str | None = None) -> None:
        (self.labelled[name][label] if label is not None else self.children[name]).set(value)

    def observe(self, name: str, value: float) -> None:
        self.children[name].observe(value)

    def render(self) -> bytes:
        return generate_latest(self.registry)


def cache_config_info(boot: VllmBoot) -> dict[str, str]:
    """`CacheConfig.metrics_info()` as label values (strings, as vLLM's info gauge has them)."""
    s, memory = boot.settings, boot.memory
    values: dict[str, object] = {
        "_block_size_resolved": True, "block_size": s.block_size, "cache_dtype": s.kv_cache_dtype,
        "cache_hit_alignment_tokens": None, "effective_attention_block_size": s.block_size,
        "enable_mamba_shared_prefix_checkpoint": False, "enable_prefix_caching": s.enable_prefix_caching,
        "engine": "0", "gpu_memory_utilization": s.gpu_memory_utilization, "hash_block_size": None,
        "is_attention_free": False, "kv_cache_dtype_skip_layers": [], "kv_cache_layout": None,
        "kv_cache_max_concurrency": round(memory.max_concurrency, 2), "kv_cache_memory_bytes": None,
        "kv_cache_size_tokens": memory.tokens, "kv_offloading_backend": "native", "kv_offloading_size": None,
        "kv_sharing_fast_prefill": False, "mamba_block_size": None, "mamba_cache_dtype": "auto",
        "mamba_cache_mode": "none", "mamba_page_size_padded": None, "mamba_ssm_cache_dtype": "auto",
        "num_cpu_blocks": None, "num_gpu_blocks": memory.blocks, "num_gpu_blocks_override": None,
        "prefix_cache_retention_interval": 0, "prefix_caching_hash_algo": "sha256", "prefix_match_unit": None,
        "replayssm_buffer_len": 16, "skip_page_size_padded": None, "sliding_window": None,
        "swa_bounded_replay": True, "use_kda_recoverssm": False, "use_replayssm": False,
        "user_specified_block_size": "block_size" in s.non_default,
    }
    return {key: str(value) for key, value in values.items()}
