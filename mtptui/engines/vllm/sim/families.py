"""vLLM 0.32.0's Prometheus families (vllm/v1/metrics/loggers.py, vllm/v1/spec_decode/metrics.py,
vllm/v1/metrics/buckets.py): name, kind, help text, the label beyond `model_name` and `engine` with the values
vLLM creates at start, and the histogram buckets. Counters are named without `_total` (the client adds it).
"""

from __future__ import annotations

from dataclasses import dataclass

REQUEST_LATENCY = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
                   480.0, 960.0, 1920.0, 7680.0)
TTFT = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
        160.0, 640.0, 2560.0)
ITL = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0)
ITERATION_TOKENS = (1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
PARAMS_N = (1, 2, 5, 10, 20)
PREEMPTIONS = (1, 2, 3, 4, 5, 10, 20)
REQUEST_TOKENS = "request_tokens"  # a 1-2-5 series up to max_model_len
FINISH_REASONS = ("stop", "length", "abort", "error", "repetition")
PROMPT_SOURCES = ("local_compute", "local_cache_hit", "external_kv_transfer")
CACHE_SOURCES = ("device", "host", "p2p", "disk", "external_unspecified")


@dataclass(frozen=True)
class Family:
    name: str
    kind: str
    doc: str
    label: str | None = None
    values: tuple[str, ...] = ()
    buckets: tuple[float, ...] | str | None = None
    engine_label: bool = True


def _histogram(name: str, doc: str, buckets: tuple[float, ...] | str) -> Family:
    return Family(name, "histogram", doc, buckets=buckets)


SPECULATIVE = (
    Family("vllm:spec_decode_num_drafts", "counter", "Number of spec decoding drafts."),
    Family("vllm:spec_decode_num_draft_tokens", "counter", "Number of draft tokens."),
    Family("vllm:spec_decode_num_accepted_tokens", "counter", "Number of accepted tokens."),
    Family("vllm:spec_decode_num_accepted_tokens_per_pos", "counter", "Accepted tokens per draft position.",
           "position"),
)
PERF = tuple(Family(f"vllm:estimated_{what}_per_gpu", "counter", f"Estimated number of {text} per GPU (for Model "
                                                                 "Flops Utilization calculations).")
             for what, text in (("flops", "floating point operations"), ("read_bytes", "bytes read from memory"),
                                ("write_bytes", "bytes written to memory")))
SCHEDULER = (
    Family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches."),
    Family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed."),
    Family("vllm:num_requests_waiting_by_reason", "gauge",
           "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; "
           "'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). Sum of all "
           "reasons equals vllm:num_requests_waiting.", "reason", ("capacity", "deferred")),
    Family("vllm:engine_sleep_state", "gauge",
           "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; "
           "weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.", "sleep_state",
           ("awake", "weights_offloaded", "discard_all")),
    Family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage."),
)
CACHES = (
    Family("vllm:prefix_cache_queries", "counter", "Prefix cache queries, in terms of number of queried tokens."),
    Family("vllm:prefix_cache_hits", "counter", "Prefix cache hits, in terms of number of cached tokens."),
    Family("vllm:external_prefix_cache_queries", "counter", "External prefix cache queries from KV connector "
           "cross-instance cache sharing, in terms of number of queried tokens."),
    Family("vllm:external_prefix_cache_hits", "counter", "External prefix cache hits from KV connector "
           "cross-instance cache sharing, in terms of number of cached tokens."),
    Family("vllm:mm_cache_queries", "counter", "Multi-modal cache queries, in terms of number of queried items."),
    Family("vllm:mm_cache_hits", "counter", "Multi-modal cache hits, in terms of number of cached items."),
)
TOKENS = (
    Family("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine."),
    Family("vllm:prompt_tokens", "counter", "Number of prefill tokens processed."),
    Family("vllm:prompt_tokens_by_source", "counter", "Number of prompt tokens by source.", "source",
           PROMPT_SOURCES),
    Family("vllm:prompt_tokens_cached", "counter", "Number of cached prompt tokens (local + external)."),
    Family("vllm:prompt_tokens_cached_by_source", "counter",
           "Prefix-cache hit tokens by the cache tier that supplied them: device (local HBM), host (offloaded to "
           "DRAM), disk, p2p (transferred from another vLLM instance) or external_unspecified. Counted at "
           "admission; sums to vllm:prefix_cache_hits + vllm:external_prefix_cache_hits.", "source", CACHE_SOURCES),
    Family("vllm:generation_tokens", "counter", "Number of generation tokens processed."),
    Family("vllm:request_success", "counter", "Count of successfully processed requests.", "finished_reason",
           FINISH_REASONS),
    Family("vllm:admission_rejections", "counter",
           "Number of admission attempts rejected by a queue limit, by reason.", "reason",
           ("max_num_queued_reqs", "max_num_queued_tokens"), engine_label=False),
)
HISTOGRAMS = (
    _histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", REQUEST_TOKENS),
    _histogram("vllm:request_generation_tokens", "Number of generation tokens processed.", REQUEST_TOKENS),
    _histogram("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", ITERATION_TOKENS),
    _histogram("vllm:request_max_num_generation_tokens",
               "Histogram of maximum number of requested generation tokens.", REQUEST_TOKENS),
    _histogram("vllm:request_params_n", "Histogram of the n request parameter.", PARAMS_N),
    _histogram("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", REQUEST_TOKENS),
    _histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT),
    _histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", ITL),
    _histogram("vllm:request_time_per_output_token_seconds",
               "Histogram of time_per_output_token_seconds per request.", ITL),
    _histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", REQUEST_LATENCY),
    _histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
               REQUEST_LATENCY),
    _histogram("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.",
               REQUEST_LATENCY),
    _histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
               REQUEST_LATENCY),
    _histogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
               REQUEST_LATENCY),
    _histogram("vllm:request_num_preemptions", "Histogram of the number of times a request was preempted.",
               PREEMPTIONS),
    _histogram("vllm:request_prefill_kv_computed_tokens",
               "Histogram of new KV tokens computed during prefill (excluding cached tokens).", REQUEST_TOKENS),
)
CACHE_CONFIG_INFO = "vllm:cache_config_info"  # a gauge set to 1, the cache config as labels


def families(speculative: bool) -> tuple[Family, ...]:
    """The families a server registers at start, in vLLM's order (speculation's only with a draft)."""
    return (*(SPECULATIVE if speculative else ()), *PERF, *SCHEDULER, *CACHES, *TOKENS, *HISTOGRAMS)


def request_token_buckets(max_model_len: int) -> tuple[float, ...]:
    """`build_1_2_5_buckets(max_model_len)`."""
    out: list[float] = []
    power = 1
    while True:
        for mantissa in (1, 2, 5):
            if mantissa * power > max_model_len:
                return tuple(out)
            out.append(float(mantissa * power))
        power *= 10
