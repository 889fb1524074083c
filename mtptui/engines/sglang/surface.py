"""What each supported SGLang release exposes over HTTP: one description, used by the simulated server and the clients.

    from mtptui.engines.sglang.surface import surface_of, known_surface

    s = surface_of("0.5.12.post1")
    s.spec_in_sglext        # False: 0.5.12.post1 sends no sglext.spec_tokens_details
    s.has_metric("sglang:spec_verify_calls_total")   # False
    s.text("max_tokens_too_large", 200000, 131072)   # SGLang's own error text

The simulated server serves exactly this (its routes, response fields, metric families and labels, the keys
of /server_info, error texts and the log templates named here); clients ask it what a version may send instead
of assuming the newest release. The facts come from the releases' wheels (``../shared/reference/
sglang-api-by-version.md``); ``scripts/sglang_conformance.py`` reads them again and
``tests/test_sglang_conformance.py`` holds this module and the simulated server to what it found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from mtptui.engines.sglang.surface_metrics import METRICS, Metric
from mtptui.engines.sglang.versions import DEFAULT_VERSION

SUPPORTED = ("0.5.12.post1", "0.5.23")
DEFAULT = DEFAULT_VERSION
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"  # multiprocess exposition, no *_created series

_ROUTES_0512 = {
    "/v1/chat/completions": ("POST",), "/v1/completions": ("POST",), "/generate": ("POST", "PUT"),
    "/v1/models": ("GET",), "/v1/models/{model:path}": ("GET",), "/health": ("GET",), "/health_generate": ("GET",),
    "/server_info": ("GET",), "/get_server_info": ("GET",), "/model_info": ("GET",), "/get_model_info": ("GET",),
    "/v1/loads": ("GET",), "/get_load": ("GET",), "/flush_cache": ("GET", "POST"), "/ping": ("GET",),
}
_ROUTES_0523 = {**{k: v for k, v in _ROUTES_0512.items() if k != "/get_load"}, "/ready": ("GET",)}

_ERRORS = {  # request errors, the same texts in both releases
    "max_tokens_too_large": "max_completion_tokens is too large: {}.This model supports at most {} completion tokens.",
    "context_exceeded": ("Requested token count exceeds the model's maximum context length of {} tokens. You "
                         "requested a total of {} tokens: {} tokens from the input messages and {} tokens for the "
                         "completion. Please reduce the number of tokens in the input messages or the completion to "
                         "fit within the limit."),
    "input_too_long": "The input ({} tokens) is longer than the model's context length ({} tokens).",
    "messages_empty": "Messages cannot be empty.",
    "prompt_empty": "Prompt cannot be empty",
    "max_new_tokens_negative": "max_new_tokens must be at least 0, got {}.",
    "completion_max_tokens": "max_tokens must be positive",
    "media_type": "Unsupported Media Type: Only 'application/json' is allowed",
    "generate_no_input": "Either text, input_ids or input_embeds should be provided.",
    "deprecated": "Endpoint '{}' is deprecated and will be removed in a future version. Please use '{}' instead.",
    "cache_flushed": ("Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting "
                      "requests, the operation will not be performed.)\n"),
    "ready": "The server is fired up and ready to roll!",
}
_ADAPTIVE = {  # adaptive speculative decoding (mtptui.engines.sglang.adaptive): the same lines in both releases
    "adaptive_disabled": "speculative_adaptive disabled: {}. Falling back to static speculative params.",
    "adaptive_init": "AdaptiveSpeculativeParams initialized: steps={}, candidate_steps={}",
    "adaptive_built": "Built adaptive runtime state steps={}: elapsed={:.2f}s, mem={:.2f}GB",
    "adaptive_updated": "Adaptive spec params updated: steps {} -> {} (ema_accept_len={:.2f})",
    "adaptive_switch": "Switch adaptive runtime state: steps {} -> {}, draft_tokens {} -> {}",
}
_TEXTS_0512 = {  # texts that differ between the releases, and log lines
    "temperature_negative": "temperature must be non-negative, got {}.",
    "capture_bs": "Capture cuda graph bs {}",
    "draft_capture_begin": "Capture draft cuda graph begin. This can take up to several minutes. avail mem={:.2f} GB",
    "draft_capture_end": ("Capture draft cuda graph end. Time elapsed: {:.2f} s. mem usage={:.2f} GB. "
                          "avail mem={:.2f} GB."),
    "adaptive_added": ("Adding initial speculative_num_steps={} to candidate_steps={} so the pre-built runtime "
                       "state is reused."),
    **_ADAPTIVE,
}
_TEXTS_0523 = {
    "temperature_negative": "temperature must be a non-negative finite number, got {}.",
    "draft_capture_begin": ("Capture draft decode CUDA graph begin. backend={}, num_tokens_per_req={}, bs={}, "
                            "avail mem={:.2f} GB"),
    "draft_capture_end": ("Capture draft decode CUDA graph end. elapsed={:.2f} s, mem usage={:.2f} GB, "
                          "avail mem={:.2f} GB."),
    "adaptive_not_candidate": ("--speculative-num-steps={} is not in the adaptive config candidate_steps {}. "
                               "Pass one of those values."),
    **_ADAPTIVE,
}
_INFO_0512 = ("status", "max_total_num_tokens", "max_req_input_len", "internal_states", "version")
_INFO_0523 = ("launch_command", "status", "max_total_num_tokens", "max_req_input_len", "hicache_object_layout",
              "kv_events", "startup_time", "internal_states", "version", "frontend")
_STATE_0512 = ("last_gen_throughput", "memory_usage", "effective_max_running_requests_per_dp", "avg_spec_accept_length")
_STATE_0523 = ("world_size", "startup_time", "effective_max_running_requests_per_dp", "last_gen_throughput",
               "memory_usage", "avg_spec_accept_length")
_SPEC_DETAILS = ("spec_accept_rate", "spec_accept_length", "spec_cap_length", "spec_block_accept_length",
                 "spec_num_correct_drafts", "spec_num_proposed_drafts", "spec_verify_ct",
                 "spec_correct_drafts_histogram", "spec_cap_lens_histogram")
_USAGE = ("prompt_tokens", "total_tokens", "completion_tokens", "prompt_tokens_details", "reasoning_tokens")


@dataclass(frozen=True)
class Surface:
    """One release's HTTP surface: routes, response fields, /metrics, /server_info keys, texts."""

    version: str
    routes: Mapping[str, tuple[str, ...]]
    usage_fields: tuple[str, ...]
    sglext_fields: tuple[str, ...]
    spec_details_fields: tuple[str, ...]  # () where sglext carries no spec_tokens_details
    server_info_keys: tuple[str, ...]  # top-level keys besides the server arguments
    internal_state_keys: tuple[str, ...]  # keys of internal_states[i] besides the server arguments
    metrics: Mapping[str, Metric]
    texts: Mapping[str, str] = field(default_factory=dict)
    stream_delta_fields: tuple[str, ...] = ("reasoning_content", "role", "content")  # msgspec, defaults omitted

    @property
    def spec_in_sglext(self) -> bool:
        """Per-request acceptance in ``sglext.spec_tokens_details`` (request field ``return_spec_tokens_details``)."""
        return bool(self.spec_details_fields)

    @property
    def reasoning_details(self) -> bool:
        """Usage repeats reasoning tokens under OpenAI's ``completion_tokens_details`` (when there are some)."""
        return "completion_tokens_details" in self.usage_fields

    def has_metric(self, name: str) -> bool:
        return metric_name(name) in self.metrics

    def text(self, key: str, *values: object) -> str:
        """SGLang's text for ``key`` with ``values`` in its placeholders."""
        return self.texts[key].format(*values)


def metric_name(name: str) -> str:
    """A metric family as SGLang names it: ``sglang_x`` (a router's or Grafana's re-export) reads as ``sglang:x``."""
    return "sglang:" + name[len("sglang_"):] if name.startswith("sglang_") else name


def _metrics_of(version: str) -> Mapping[str, Metric]:
    return MappingProxyType({m.name: m for m in METRICS[version]})


_SURFACES = {
    "0.5.12.post1": Surface(
        "0.5.12.post1", MappingProxyType(_ROUTES_0512), _USAGE, ("routed_experts", "cached_tokens_details"), (),
        _INFO_0512, _STATE_0512, _metrics_of("0.5.12.post1"), MappingProxyType({**_ERRORS, **_TEXTS_0512})),
    "0.5.23": Surface(
        "0.5.23", MappingProxyType(_ROUTES_0523), (*_USAGE, "completion_tokens_details"),
        ("routed_experts", "cached_tokens_details", "spec_tokens_details", "input_ids", "output_ids"), _SPEC_DETAILS,
        _INFO_0523, _STATE_0523, _metrics_of("0.5.23"), MappingProxyType({**_ERRORS, **_TEXTS_0523})),
}


def surface_of(version: str) -> Surface:
    """The surface of a supported version; KeyError for any other."""
    return _SURFACES[version]


def known_surface(version: object) -> Surface | None:
    """The surface of ``version`` when it is a supported one, else None (a client then takes what arrives)."""
    return _SURFACES.get(version) if isinstance(version, str) else None
