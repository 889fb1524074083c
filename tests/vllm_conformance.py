"""Hold the simulated vLLM to the real one: the same requests to both, and everything both show compared.

``probe`` sends one battery of requests (every served route, streamed and not, with and without usage, the
error cases) and keeps status, content type and body; ``Tally`` counts what was compared (and what differed)
and what cannot be compared because only a GPU shows it or the simulator does not play it. The comparisons:

- routes and status codes, content types;
- JSON bodies by shape: the keys in order and each value's type, recursively (values differ: another tokenizer,
  another clock); error messages word for word where they do not quote generated text;
- SSE streams: the distinct chunk shapes in order (how many text chunks depends on tokens per step);
- `/metrics`: the `vllm:` families' names, types, help texts, label names and enumerated label values, buckets;
- the logs through the knowledge layer's parser: the startup event kinds in order (the GPU build's own kinds
  counted apart), the launch arguments and engine config, the periodic lines' fields, processes, access lines;
- refused launches: exit status, stderr's usage and error lines, the exception lines of a traceback, and what
  the log said before it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from mtptui.engines.vllm.logparse import parse_text

STARTUP_KINDS = ("banner", "launch_args", "architecture", "max_model_len", "engine_config", "weight_load_begin",
                 "shard_progress", "weight_load_end", "kv_cache", "graph_capture_progress", "graph_capture_end",
                 "engine_init_end", "server_listen", "server_ready")
GPU_ONLY_KINDS = frozenset({"graph_capture_progress", "graph_capture_end"})  # a CPU build captures no graphs
DIFFERENT_VALUES = {"port"}  # each server listens on its own port
DEVICE_FIELDS = {"device"}  # engine_config: cpu here, cuda on the simulated host
ENUMERATED = ("finished_reason", "reason", "source", "sleep_state", "position")


@dataclass
class Tally:
    """What was compared (and which of those differ) and what could not be compared, by area."""

    compared: dict[str, int] = field(default_factory=dict)
    unknowable: dict[str, list[str]] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)

    def check(self, area: str, what: str, real: object, sim: object) -> None:
        self.compared[area] = self.compared.get(area, 0) + 1
        if real != sim:
            self.differences.append(f"{area}: {what}: real {real!r} != sim {sim!r}")

    def cannot(self, area: str, what: str) -> None:
        self.unknowable.setdefault(area, []).append(what)

    def counts(self) -> dict[str, Any]:
        return {"compared": sum(self.compared.values()), "by_area": dict(self.compared),
                "differ": len(self.differences),
                "not_comparable": sum(len(v) for v in self.unknowable.values()),
                "not_comparable_by_area": {k: len(v) for k, v in self.unknowable.items()}}


def shape(value: Any) -> Any:
    """The structure of a JSON value: keys in order with their shapes, list items' shapes, leaf types."""
    if isinstance(value, dict):
        return [(key, shape(item)) for key, item in value.items()]
    if isinstance(value, list):
        return ["list", *dict.fromkeys(json.dumps(shape(item)) for item in value)]
    return type(value).__name__


def sse_chunks(text: str) -> list[Any]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]


def sse_shapes(text: str) -> list[Any]:
    """The distinct chunk shapes of a stream, in order, repeats collapsed; `[DONE]` last if sent."""
    shapes: list[Any] = []
    for chunk in sse_chunks(text):
        if not shapes or shapes[-1] != shape(chunk):
            shapes.append(shape(chunk))
    return shapes + (["[DONE]"] if "data: [DONE]" in text else [])


@dataclass(frozen=True)
class Call:
    name: str
    method: str
    path: str
    body: Any = None
    raw: bytes | None = None
    exact: bool = False  # the answer's text does not depend on the model's output: compare it word for word


def calls(model: str) -> list[Call]:
    chat = {"model": model, "messages": [{"role": "user", "content": "the server decodes"}], "temperature": 0}
    prompt = {"model": model, "prompt": "the server decodes tokens the server", "temperature": 0}
    return [
        Call("health", "GET", "/health", exact=True), Call("version", "GET", "/version", exact=True),
        Call("models", "GET", "/v1/models"), Call("ping", "GET", "/ping", exact=True),
        Call("ping post", "POST", "/ping", exact=True), Call("load", "GET", "/load", exact=True),
        Call("unknown route", "GET", "/nope", exact=True),
        Call("unknown model card", "GET", "/v1/models/x", exact=True),
        Call("wrong method", "GET", "/v1/completions", exact=True),
        Call("tokenize", "POST", "/tokenize", {"model": model, "prompt": "the server decodes tokens"}),
        Call("tokenize chat", "POST", "/tokenize", {"model": model, "messages": chat["messages"]}),
        Call("completion", "POST", "/v1/completions", {**prompt, "max_tokens": 12}),
        Call("completion n2", "POST", "/v1/completions", {**prompt, "max_tokens": 5, "n": 2, "temperature": 0.5}),
        Call("chat", "POST", "/v1/chat/completions", {**chat, "max_tokens": 12}),
        Call("chat stream usage", "POST", "/v1/chat/completions",
             {**chat, "max_tokens": 8, "stream": True, "stream_options": {"include_usage": True}}),
        Call("chat stream", "POST", "/v1/chat/completions", {**chat, "max_tokens": 6, "stream": True}),
        Call("chat stream continuous", "POST", "/v1/chat/completions",
             {**chat, "max_tokens": 6, "stream": True,
              "stream_options": {"include_usage": True, "continuous_usage_stats": True}}),
        Call("completion stream usage", "POST", "/v1/completions",
             {**prompt, "max_tokens": 6, "stream": True, "stream_options": {"include_usage": True}}),
        Call("bad model", "POST", "/v1/chat/completions", {**chat, "model": "nope"}, exact=True),
        Call("no messages", "POST", "/v1/chat/completions", {"model": model}, exact=True),
        Call("bad json", "POST", "/v1/chat/completions", raw=b"{", exact=True),
        Call("too long", "POST", "/v1/completions", {**prompt, "prompt": "word " * 1100, "max_tokens": 5}, exact=True),
        Call("max_tokens too big", "POST", "/v1/completions", {**prompt, "max_tokens": 5000}, exact=True),
        Call("negative temperature", "POST", "/v1/completions", {**prompt, "max_tokens": 5, "temperature": -1},
             exact=True),
        Call("no prompt", "POST", "/v1/completions", {"model": model}, exact=True),
    ]


@dataclass
class Answer:
    status: int
    content_type: str
    text: str


def probe(base: str, model: str) -> dict[str, Answer]:
    """Every call of the battery against one server, in order."""
    out: dict[str, Answer] = {}
    with httpx.Client(base_url=base, timeout=300) as client:
        for call in calls(model):
            if call.raw is not None:
                reply = client.request(call.method, call.path, content=call.raw,
                                       headers={"content-type": "application/json"})
            else:
                reply = client.request(call.method, call.path, json=call.body)
            out[call.name] = Answer(reply.status_code, reply.headers.get("content-type", ""), reply.text)
    return out


def compare_answers(tally: Tally, model: str, real: dict[str, Answer], sim: dict[str, Answer]) -> None:
    for call in calls(model):
        r, s = real[call.name], sim[call.name]
        tally.check("status", call.name, r.status, s.status)
        tally.check("content type", call.name, r.content_type, s.content_type)
        if r.content_type.startswith("text/event-stream"):
            tally.check("sse", call.name, sse_shapes(r.text), sse_shapes(s.text))
        elif r.content_type.startswith("application/json"):
            tally.check("json shape", call.name, shape(json.loads(r.text)), shape(json.loads(s.text)))
        if call.exact:
            tally.check("exact text", call.name, _stable(r.text), _stable(s.text))
    _stream_rules(tally, real, sim)


def _stable(text: str) -> str:
    """A body without the values that differ by clock and process (`created`, ids)."""
    try:
        body = json.loads(text) if text else text
    except ValueError:
        return text
    if isinstance(body, dict):
        for key in ("created", "id"):
            body.pop(key, None)
    return json.dumps(body, sort_keys=True) if not isinstance(body, str) else body


def _stream_rules(tally: Tally, real: dict[str, Answer], sim: dict[str, Answer]) -> None:
    """Where the usage and the fingerprint ride, and the usage arithmetic, in each stream."""
    for name in ("chat stream usage", "chat stream", "chat stream continuous", "completion stream usage"):
        for label, answers in (("real", real), ("sim", sim)):
            chunks = sse_chunks(answers[name].text)
            where = [i for i, c in enumerate(chunks) if "system_fingerprint" in c]
            last = chunks[-1]
            usage = last.get("usage") or {}
            tally.check("stream rules", f"{label} {name}: fingerprint on the last chunk only",
                        [len(chunks) - 1], where)
            tally.check("stream rules", f"{label} {name}: usage adds up",
                        usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0),
                        usage.get("total_tokens", 0))


def metric_families(text: str) -> dict[str, dict[str, Any]]:
    """The `vllm:` families: type, help, label names, enumerated values, buckets (no `_created` series)."""
    out: dict[str, dict[str, Any]] = {}
    for family in text_string_to_metric_families(text):
        if not family.name.startswith("vllm:") or family.name.endswith("_created"):
            continue
        labels = {k for s in family.samples for k in s.labels if k != "le"}
        values = {k: sorted({s.labels[k] for s in family.samples if k in s.labels}) for k in ENUMERATED if k in labels}
        buckets = sorted({float(s.labels["le"]) for s in family.samples if "le" in s.labels})
        out[family.name] = {"type": family.type, "help": family.documentation, "labels": sorted(labels),
                            "values": values, "buckets": buckets}
    return out


def others(text: str) -> set[str]:
    return {f.name for f in text_string_to_metric_families(text) if not f.name.startswith("vllm:")}


def compare_metrics(tally: Tally, real_text: str, sim_text: str) -> None:
    real, sim = metric_families(real_text), metric_families(sim_text)
    tally.check("metric families", "names", sorted(real), sorted(sim))
    for name in sorted(set(real) & set(sim)):
        for key in ("type", "help", "labels", "values", "buckets"):
            if name == "vllm:cache_config_info" and key == "values":
                continue
            tally.check("metric families", f"{name} {key}", real[name][key], sim[name][key])
    for name in sorted(others(real_text) - others(sim_text)):
        tally.cannot("metric families", f"{name} (prometheus-fastapi-instrumentator's, not simulated)")
    tally.cannot("metric families", "vllm:cache_config_info label values (block size, memory: the device's)")


def _startup(events: list[Any]) -> list[str]:
    kinds = [e.kind for e in events if e.kind in STARTUP_KINDS]
    return [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]


def _first(events: list[Any], kind: str) -> dict[str, Any]:
    return next((e.fields for e in events if e.kind == kind), {})


def compare_logs(tally: Tally, real_log: str, sim_log: str) -> None:
    real, sim = parse_text(real_log), parse_text(sim_log)
    sim_kinds = _startup(sim)
    for kind in sorted(set(sim_kinds) & GPU_ONLY_KINDS):
        tally.cannot("log startup", f"{kind} (a GPU build's; the CPU build captures no graphs)")
    played = [kind for kind in sim_kinds if kind not in GPU_ONLY_KINDS]
    tally.check("log startup", "event kinds in order", _startup(real), played)
    _compare_fields(tally, real, sim)
    for label, events in (("real", real), ("sim", sim)):
        tally.check("log processes", f"{label}: API server, engine core and worker log",
                    True, {"APIServer", "EngineCore", "Worker"} <= {e.process for e in events})
    tally.check("log routes", "Route: lines", _routes(real), _routes(sim))
    tally.check("log access", "access lines (method, path, status) in order", _access(real), _access(sim))
    for kind in ("engine_stats", "spec_decode"):
        r, s = _filled(real, kind), _filled(sim, kind)
        tally.check("log periodic", f"{kind} fields", r, s)
    tally.check("log periodic", "per-position entries", _positions(real), _positions(sim))


def _routes(events: list[Any]) -> list[tuple[str, tuple[str, ...]]]:
    return sorted((e.fields["path"], tuple(sorted(e.fields["methods"]))) for e in events if e.kind == "route")


def _access(events: list[Any]) -> list[tuple[str, str, int]]:
    return [(e.fields["method"], e.fields["path"], e.fields["status"]) for e in events if e.kind == "http_access"]


def _compare_fields(tally: Tally, real: list[Any], sim: list[Any]) -> None:
    args_r, args_s = _first(real, "launch_args").get("args") or {}, _first(sim, "launch_args").get("args") or {}
    tally.check("log launch args", "keys in order", list(args_r), list(args_s))
    for key in args_r:
        if key in DIFFERENT_VALUES:
            tally.cannot("log launch args", f"{key} value (each server its own)")
            continue
        tally.check("log launch args", key, args_r.get(key), args_s.get(key))
    config_r, config_s = _first(real, "engine_config"), _first(sim, "engine_config")
    for key in config_r:
        if key in DEVICE_FIELDS:
            tally.cannot("log engine config", f"{key} (cpu here, cuda on the simulated host)")
            continue
        tally.check("log engine config", key, config_r.get(key), config_s.get(key))
    for kind in ("architecture", "max_model_len"):
        tally.check("log model config", kind, _first(real, kind), _first(sim, kind))
    r_kv, s_kv = _first(real, "kv_cache"), next((e.fields for e in sim if e.kind == "kv_cache" and e.fields["tokens"]),
                                                {})
    tally.check("log kv cache", "context_len", r_kv.get("context_len"), s_kv.get("context_len"))
    tally.cannot("log kv cache", "tokens, max_concurrency, device (the device's memory)")


def _filled(events: list[Any], kind: str) -> list[str]:
    """The fields a periodic line carries (not their values: another device, other speeds)."""
    found = next((e for e in events if e.kind == kind), None)
    return sorted(k for k, v in found.fields.items() if v is not None and k != "kv_device") if found else []


def _positions(events: list[Any]) -> list[int]:
    return sorted({len(e.fields["per_position"] or []) for e in events if e.kind == "spec_decode"})


WHOLE_CONFIG = re.compile(r", input_value=ArgsKwargs\(.*, input_type=ArgsKwargs\]$")
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")  # a function's address: each process its own


def refusal_tail(stderr: str) -> list[str]:
    """What a refusal ends with: argparse's usage and error, or the exception lines after the last frame."""
    lines = [line for line in stderr.splitlines() if not line.startswith("Triton is installed")]
    frames = [index for index, line in enumerate(lines) if line.startswith("  File ")]
    if not frames:
        return lines
    after = lines[frames[-1] + 1:]
    start = next((index for index, line in enumerate(after) if not line.startswith("    ")), len(after))
    return after[start:]  # past the last frame's source line and its ^^^ markers


def _events(text: str) -> list[str]:
    return [e.kind for e in parse_text(text) if e.kind != "warning"]


def compare_refusal(tally: Tally, name: str, real: dict[str, Any], sim: dict[str, Any]) -> None:
    tally.check("refusal", f"{name}: exit status", real["rc"], sim["rc"])
    real_tail, sim_tail = refusal_tail(real["stderr"]), refusal_tail(sim["stderr"])
    tally.check("refusal", f"{name}: stderr lines", len(real_tail), len(sim_tail))
    for index, (r, s) in enumerate(zip(real_tail, sim_tail)):
        if WHOLE_CONFIG.search(r):
            tally.cannot("refusal", f"{name}: line {index + 1}'s input_value (the repr of vLLM's whole config)")
            r = WHOLE_CONFIG.sub("]", r)
        tally.check("refusal", f"{name}: stderr line {index + 1}", ADDRESS.sub(">", r), ADDRESS.sub(">", s))
    tally.check("refusal", f"{name}: what the log said first", _events(real["stdout"]), _events(sim["stdout"]))
