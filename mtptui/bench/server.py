"""What the benchmark asks the server before a run: its engine and version, launch flags and model (`/server_info`,
`/v1/models`; the engine by its own word about itself, mtptui.engines.registry.server_engine: vLLM's `/version`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from mtptui.bench.bounds import COMMAND_CHARS, bounded_value, model_name, text_or_none
from mtptui.bench.client import ChatClient, ResponseTooLarge, describe_http_error
from mtptui.errors import UserError
from mtptui.engines.sglang.api import GetJson, first_model_id, served_models, server_info

# Resolved server args that decide speed; recorded in the fingerprint and shown when two runs differ.
KEY_ARGS = (
    "model_path", "served_model_name", "tp_size", "dp_size", "speculative_algorithm", "speculative_num_steps",
    "speculative_eagle_topk", "speculative_num_draft_tokens", "mem_fraction_static", "context_length",
    "max_running_requests", "chunked_prefill_size", "mamba_full_memory_ratio", "mamba_scheduler_strategy",
    "reasoning_parser", "tool_call_parser", "stream_interval", "attention_backend", "kv_cache_dtype",
    "quantization", "dtype", "cuda_graph_max_bs", "disable_cuda_graph", "enable_metrics",
)


@dataclass
class ServerInfo:
    """The facts of the server a run measured, within bounds (mtptui.bench.bounds); ``notes`` says what was cut."""

    version: str | None = None
    model: str | None = None
    launch_flags: dict[str, Any] = field(default_factory=dict)
    launch_command: str | None = None
    request_model: str = "default"
    notes: list[str] = field(default_factory=list)
    spec_v2: bool | None = None  # SGLang's speculative workers v2 (mtptui.engines.sglang.spec_v2), None: no such switch
    engine: str | None = None  # the engine the server is (mtptui.engines.registry), None when none recognised it

    @property
    def speculative(self) -> bool:
        return bool(self.launch_flags.get("speculative_algorithm"))


def _unreachable(url: str, exc: httpx.HTTPError) -> UserError:
    return UserError(f"cannot reach the server at {url}: {describe_http_error(exc, None)}")


def _noting(client: ChatClient, notes: list[str]) -> GetJson:
    """The client's get_json, with an answer too large to read noted and treated as no answer."""
    async def get_json(path: str) -> tuple[int, Any]:
        try:
            return await client.get_json(path)
        except ResponseTooLarge as exc:
            notes.append(str(exc))
            return 0, None

    return get_json


def _once(get_json: GetJson) -> GetJson:
    """``get_json`` asking each path once (the probe and the engine's recognition read the same answers)."""
    answers: dict[str, tuple[int, Any]] = {}

    async def cached(path: str) -> tuple[int, Any]:
        if path not in answers:
            answers[path] = await get_json(path)
        return answers[path]

    return cached


def _info_from(raw: dict[str, Any]) -> ServerInfo:
    from mtptui.engines.sglang.spec_v2 import from_server_args

    flags = {key: bounded_value(raw[key]) for key in KEY_ARGS if key in raw}
    version = text_or_none(raw.get("version"))
    return ServerInfo(version=version, launch_flags=flags,
                      launch_command=text_or_none(raw.get("launch_command"), COMMAND_CHARS),
                      spec_v2=from_server_args(version, raw))


async def server_accept_len(client: ChatClient) -> float | None:
    """``avg_spec_accept_length`` of /server_info's first internal state (the server's lifetime average), or None."""
    try:
        raw = await server_info(_noting(client, []))
    except httpx.HTTPError:
        return None
    states = (raw or {}).get("internal_states")
    value = states[0].get("avg_spec_accept_length") if isinstance(states, list) and states and \
        isinstance(states[0], dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


async def probe_server(client: ChatClient, model: str | None = None) -> ServerInfo:
    """Read `/server_info` (or the old `/get_server_info`) and the served model name.

    An unreachable server is a UserError (one sentence, exit 1); a server without these endpoints still runs.
    """
    from mtptui.engines.registry import server_engine

    notes: list[str] = []
    get_json = _once(_noting(client, notes))
    try:
        raw = await server_info(get_json) or {}
        models = await served_models(get_json)
        engine = await server_engine(get_json)
    except httpx.HTTPError as exc:
        raise _unreachable(client.base_url, exc) from None
    info = _info_from(raw)
    if engine is not None:
        info.engine = engine[0].name
        if not raw:  # no /server_info (vLLM): the release is the engine's own word about itself
            info.version = text_or_none(engine[1].version)
    name, note = model_name(model, first_model_id(models), raw.get("served_model_name"), raw.get("model_path"))
    info.model, info.notes = name or "default", notes + ([note] if note else [])
    info.request_model = name if name and note is None else "default"
    return info
