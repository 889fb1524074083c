"""The routes `vllm serve` 0.32.0 lists at startup (`Route: PATH, Methods: ...`), in its order: the API server's
table for a generative model with the default flags (a path served with two methods is listed twice)."""

from __future__ import annotations

ROUTES: tuple[tuple[str, str], ...] = (
    ("/openapi.json", "GET, HEAD"), ("/docs", "GET, HEAD"), ("/docs/oauth2-redirect", "GET, HEAD"),
    ("/redoc", "GET, HEAD"), ("/load", "GET"), ("/version", "GET"), ("/kv_event_sources", "GET"),
    ("/health", "GET"), ("/metrics", "GET"), ("/tokenize", "POST"), ("/detokenize", "POST"),
    ("/v1/models", "GET"), ("/v1/systemone", "POST"), ("/ping", "GET"), ("/ping", "POST"),
    ("/invocations", "POST"), ("/v1/chat/completions", "POST"), ("/v1/chat/completions/batch", "POST"),
    ("/v1/responses", "POST"), ("/v1/responses/{response_id}", "GET"), ("/v1/responses/{response_id}/cancel", "POST"),
    ("/v1/completions", "POST"), ("/v1/messages", "POST"), ("/v1/messages/count_tokens", "POST"),
    ("/generative_scoring", "POST"), ("/scale_elastic_ep", "POST"), ("/is_scaling_elastic_ep", "POST"),
    ("/v1/chat/completions/render", "POST"), ("/v1/messages/render", "POST"), ("/v1/completions/render", "POST"),
    ("/v1/responses/render", "POST"), ("/v1/chat/completions/derender", "POST"),
    ("/v1/completions/derender", "POST"), ("/inference/v1/generate", "POST"), ("/inference/v1/abort_requests", "POST"),
)
