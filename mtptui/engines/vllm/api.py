"""vLLM's HTTP API surface and metric families (vLLM 0.32.0; ../shared/reference/vllm.md), one home for both.

`ROUTES` are the paths mtptui uses or checks, with their methods, as `vllm serve` lists them at startup
(`Route: /health, Methods: GET`). `FAMILIES` are the Prometheus families mtptui reads from `/metrics` (labels
`engine` and `model_name`); a counter is exposed with `_total`.
"""

from __future__ import annotations

HEALTH, VERSION, MODELS, METRICS = "/health", "/version", "/v1/models", "/metrics"
COMPLETIONS, CHAT, TOKENIZE, PING, LOAD = "/v1/completions", "/v1/chat/completions", "/tokenize", "/ping", "/load"

ROUTES: dict[str, frozenset[str]] = {
    HEALTH: frozenset({"GET"}), VERSION: frozenset({"GET"}), MODELS: frozenset({"GET"}),
    METRICS: frozenset({"GET"}), COMPLETIONS: frozenset({"POST"}), CHAT: frozenset({"POST"}),
    TOKENIZE: frozenset({"POST"}), PING: frozenset({"GET", "POST"}), LOAD: frozenset({"GET"}),
}

RUNNING, WAITING, KV_USAGE = "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc"
KV_USAGE_OLD = "vllm:gpu_cache_usage_perc"
PROMPT_TOKENS, GENERATION_TOKENS = "vllm:prompt_tokens", "vllm:generation_tokens"
REQUEST_SUCCESS, PREEMPTIONS = "vllm:request_success", "vllm:num_preemptions"
TTFT, ITL, ITL_OLD = "vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds", \
    "vllm:time_per_output_token_seconds"
E2E, QUEUE_TIME = "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds"
DRAFTS, DRAFT_TOKENS = "vllm:spec_decode_num_drafts", "vllm:spec_decode_num_draft_tokens"
ACCEPTED, ACCEPTED_PER_POS = "vllm:spec_decode_num_accepted_tokens", "vllm:spec_decode_num_accepted_tokens_per_pos"

COUNTERS = (PROMPT_TOKENS, GENERATION_TOKENS, REQUEST_SUCCESS, PREEMPTIONS, DRAFTS, DRAFT_TOKENS, ACCEPTED,
            ACCEPTED_PER_POS)
GAUGES = (RUNNING, WAITING, KV_USAGE, KV_USAGE_OLD)
HISTOGRAMS = (TTFT, ITL, E2E, QUEUE_TIME)
FAMILIES = COUNTERS + GAUGES + HISTOGRAMS
SYSTEM_FINGERPRINT_PREFIX = "vllm-"  # chat/completion responses: `system_fingerprint` "vllm-0.32.0-..."
