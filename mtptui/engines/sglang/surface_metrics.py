"""The Prometheus families of each release that mtptui reads or the simulated server exports (facts from
``observability/metrics_collector.py`` of each wheel): name, kind, labels, and when the value moves."""

from __future__ import annotations

from dataclasses import dataclass

SCHEDULER_LABELS = ("model_name", "engine_type", "tp_rank", "pp_rank", "moe_ep_rank")
TOKENIZER_LABELS = ("model_name", "engine_type")

# When a family changes: at the scheduler's decode/prefill log (and every 30 s while idle), when a request
# finishes (``observe_one_finished_request``), per token chunk, at startup.
LOG, FINISH, CHUNK, STARTUP = "decode log", "request end", "per chunk", "startup"


@dataclass(frozen=True)
class Metric:
    """One family as SGLang's source declares it (``name`` with the ``sglang:`` prefix and ``_total`` of counters)."""

    name: str
    kind: str
    labels: tuple[str, ...]
    moves: str
    buckets: tuple[float, ...] = ()

    @property
    def short(self) -> str:
        """The name without the prefix and the counter suffix (``generation_tokens``)."""
        base = self.name.split(":", 1)[1]
        return base[:-len("_total")] if self.kind == "counter" and base.endswith("_total") else base


TTFT_BUCKETS = (0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400)
E2E_BUCKETS = TTFT_BUCKETS + (600, 1200, 1800, 2400)
ITL_BUCKETS = (0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4,
               0.6, 0.8, 1.0, 2.0, 4.0, 6.0, 8.0)
QUEUE_BUCKETS = (0.0, 0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90,
                 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000)

_GAUGES = ("num_running_reqs", "num_queue_reqs", "gen_throughput", "token_usage", "num_used_tokens", "cache_hit_rate",
           "spec_accept_length", "spec_accept_rate", "full_token_usage", "mamba_usage", "kv_used_tokens",
           "kv_available_tokens", "is_cuda_graph", "num_retracted_reqs")
_STARTUP_GAUGES = ("max_total_num_tokens", "context_len")
_NEW_GAUGES = ("spec_num_steps", "spec_num_draft_tokens", "weight_memory_usage_gb", "kv_cache_memory_usage_gb")


def _gauge(name: str, moves: str = LOG) -> Metric:
    return Metric(f"sglang:{name}", "gauge", SCHEDULER_LABELS, moves)


def _family(name: str, kind: str, extra: tuple[str, ...] = (), moves: str = FINISH,
            buckets: tuple[float, ...] = ()) -> Metric:
    return Metric(f"sglang:{name}", kind, TOKENIZER_LABELS + extra, moves, tuple(float(b) for b in buckets))


def _metrics(streaming: tuple[str, ...], new: bool) -> list[Metric]:
    """0.5.23 (``new``) splits token counters and TTFT/E2E by ``is_streaming`` and adds the verify counter."""
    out = [_gauge(name) for name in _GAUGES] + [_gauge(name, STARTUP) for name in _STARTUP_GAUGES]
    out += [_gauge(name, STARTUP) for name in _NEW_GAUGES] if new else []
    out += [_family("prompt_tokens_total", "counter", streaming),
            _family("generation_tokens_total", "counter", streaming),
            _family("cached_tokens_total", "counter", ("cache_source",)),
            _family("num_requests_total", "counter", streaming), _family("num_aborted_requests_total", "counter"),
            _family("time_to_first_token_seconds", "histogram", streaming, CHUNK, TTFT_BUCKETS),
            _family("inter_token_latency_seconds", "histogram", (), CHUNK, ITL_BUCKETS),
            _family("e2e_request_latency_seconds", "histogram", streaming, FINISH, E2E_BUCKETS),
            Metric("sglang:queue_time_seconds", "histogram", SCHEDULER_LABELS, "prefill",
                   tuple(float(b) for b in QUEUE_BUCKETS))]
    if new:
        out.append(_family("spec_verify_calls_total", "counter"))
    return out


METRICS = {"0.5.12.post1": _metrics((), new=False), "0.5.23": _metrics(("is_streaming",), new=True)}
