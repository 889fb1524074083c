"""vLLM's startup lines (reference: ../shared/reference/vllm.md), from the banner to `Application startup complete.`"""

from __future__ import annotations

import ast
import re
from typing import Any

from mtptui.engines.sglang.logparse.values import to_float, to_int

Parsed = tuple[str, dict[str, Any]] | None

BANNER_VERSION = re.compile(r"(?:█|▀|▄).*\bversion +(\S+)\s*$")
BANNER_MODEL = re.compile(r"(?:█|▀|▄).*\bmodel +(.+?)\s*$")
PLAIN_BANNER = re.compile(r"vLLM (?:API )?server version (\S+?),? (?:serving model (.+?))?\s*$")
SHARDS = re.compile(r"(?P<desc>[^:]+?): +(?P<pct>\d+)% Completed \| (?P<done>\d+)/(?P<total>\d+)\b")
GRAPHS = re.compile(r"(?P<desc>Capturing (?:CUDA|cuda|HIP|XPU)? ?graphs?[^:]*): +\d+%\|[^|]*\| "
                    r"(?P<done>\d+)/(?P<total>\d+)")
MODEL_LOADING = re.compile(r"Model loading took ([\d.]+) ?GiB(?: memory)? and ([\d.]+) seconds")
OLD_MODEL_LOADING = re.compile(r"Loading model weights took ([\d.]+) ?GB")
WEIGHTS = re.compile(r"Loading weights took ([\d.]+) seconds")
AVAILABLE_KV = re.compile(r"Available KV cache memory: ([\d.]+) ?GiB")
KV_SIZE = re.compile(r"(?:(?P<device>[A-Z]+)(?: \+ host)? )?KV cache size: (?P<tokens>[\d,]+) tokens")
CONCURRENCY = re.compile(r"Maximum concurrency for (?P<len>[\d,]+) tokens per request: (?P<x>[\d.]+)x")
GRAPH_END = re.compile(r"Graph capturing finished in ([\d.]+) secs?, took ([\d.]+) ?GiB")
INIT_END = re.compile(r"init engine \(profile, create kv cache, warmup model\) took ([\d.]+) s"
                      r"(?: \(compilation: ([\d.]+) s)?")
LISTEN = re.compile(r"Starting vLLM (?:API )?server (?:\d+ )?on (\S+)")
ROUTE = re.compile(r"Route: (\S+), Methods: ([A-Z, ]+)$")
ENGINE_INIT = re.compile(r"Initializing a V1 LLM engine \(v(\S+?)\) with config: ")
CONFIG_VALUE = re.compile(r"\b(\w+)=('(?:[^'\\]|\\.)*'|[^,()]+(?:\([^)]*\))?)")
SPEC = re.compile(r"SpeculativeConfig\(method='([^']+)'(?:, model=[^,]+)?, num_spec_tokens=(\d+)\)")
CONFIG_KEYS = {"model": "model", "dtype": "dtype", "max_seq_len": "max_seq_len",
               "tensor_parallel_size": "tensor_parallel_size", "pipeline_parallel_size": "pipeline_parallel_size",
               "data_parallel_size": "data_parallel_size", "quantization": "quantization",
               "kv_cache_dtype": "kv_cache_dtype", "enforce_eager": "enforce_eager", "device_config": "device"}


def _number(text: str) -> int | None:
    return to_int(text.replace(",", ""))


def banner(msg: str) -> Parsed:
    if (found := BANNER_VERSION.search(msg)) is not None:
        return "banner", {"version": found.group(1), "model": None}
    if (found := BANNER_MODEL.search(msg)) is not None:
        return "banner", {"version": None, "model": found.group(1)}
    if (found := PLAIN_BANNER.match(msg)) is not None:
        return "banner", {"version": found.group(1), "model": found.group(2)}
    return None


def launch_args(msg: str) -> Parsed:
    if not msg.startswith("non-default args: "):
        return None
    try:
        value = ast.literal_eval(msg[len("non-default args: "):].strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = None
    return "launch_args", {"args": value if isinstance(value, dict) else None}


def progress(msg: str) -> Parsed:
    if (found := SHARDS.match(msg)) is not None:
        done, total = int(found.group("done")), int(found.group("total"))
        return "shard_progress", {"desc": found.group("desc"), "done": done, "total": total,
                                  "percent": int(found.group("pct"))}
    if (found := GRAPHS.match(msg)) is not None:
        return "graph_capture_progress", {"bs": None, "avail_mem_gb": None, "done": int(found.group("done")),
                                          "total": int(found.group("total"))}
    return None


def weights(msg: str) -> Parsed:
    if (found := MODEL_LOADING.search(msg)) is not None:
        return "weight_load_end", _load_end(to_float(found.group(2)), to_float(found.group(1)))
    if (found := WEIGHTS.search(msg)) is not None:
        return "weight_load_end", _load_end(to_float(found.group(1)), None)
    if (found := OLD_MODEL_LOADING.search(msg)) is not None:
        return "weight_load_end", _load_end(None, to_float(found.group(1)))
    if msg.startswith("Starting to load model "):
        return "weight_load_begin", {"avail_mem_gb": None}
    return None


def _load_end(elapsed: float | None, usage: float | None) -> dict[str, Any]:
    return {"model_type": None, "dtype": None, "elapsed_s": elapsed, "avail_mem_gb": None, "mem_usage_gb": usage}


def kv_cache(msg: str) -> Parsed:
    fields: dict[str, Any] = {"dtype": None, "tokens": None, "k_size_gb": None, "v_size_gb": None,
                              "kv_size_gb": None, "device": None, "max_concurrency": None, "context_len": None}
    if (found := AVAILABLE_KV.search(msg)) is not None:
        fields["kv_size_gb"] = to_float(found.group(1))
        return "kv_cache", fields
    size, concurrency = KV_SIZE.search(msg), CONCURRENCY.search(msg)
    if size is None and concurrency is None:
        return None
    if size is not None:
        fields["tokens"], fields["device"] = _number(size.group("tokens")), size.group("device")
    if concurrency is not None:
        fields["context_len"], fields["max_concurrency"] = _number(concurrency.group("len")), \
            to_float(concurrency.group("x"))
    return "kv_cache", fields


def graph_end(msg: str) -> Parsed:
    found = GRAPH_END.search(msg)
    if found is None:
        return None
    return "graph_capture_end", {"elapsed_s": to_float(found.group(1)), "mem_usage_gb": to_float(found.group(2)),
                                 "avail_mem_gb": None}


def resolved(msg: str) -> Parsed:
    if msg.startswith("Resolved architecture: "):
        return "architecture", {"architecture": msg.split(": ", 1)[1].strip()}
    if msg.startswith("Using max model len "):
        return "max_model_len", {"tokens": _number(msg.rsplit(" ", 1)[1])}
    return None


def engine_config(msg: str) -> Parsed:
    found = ENGINE_INIT.match(msg)
    if found is None:
        return None
    fields: dict[str, Any] = dict.fromkeys(("version", *CONFIG_KEYS.values(), "speculative_method",
                                            "num_speculative_tokens"))
    fields["version"] = found.group(1)
    rest = msg[found.end():]
    for key, value in CONFIG_VALUE.findall(rest):
        if key in CONFIG_KEYS and fields[CONFIG_KEYS[key]] is None:
            fields[CONFIG_KEYS[key]] = _config_value(value)
    if (spec := SPEC.search(rest)) is not None:
        fields["speculative_method"], fields["num_speculative_tokens"] = spec.group(1), int(spec.group(2))
    return "engine_config", fields


def _config_value(text: str) -> Any:
    text = text.strip()
    if text.startswith("'"):
        return text[1:-1]
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    number = _number(text)
    return number if number is not None else text


def route(msg: str) -> Parsed:
    found = ROUTE.match(msg)
    if found is None:
        return None
    return "route", {"path": found.group(1), "methods": found.group(2).split(", ")}


def engine_ready(msg: str) -> Parsed:
    if (found := INIT_END.match(msg)) is not None:
        return "engine_init_end", {"elapsed_s": to_float(found.group(1)),
                                   "compile_s": to_float(found.group(2)) if found.group(2) else None}
    if (found := LISTEN.match(msg)) is not None:
        return "server_listen", {"url": found.group(1)}
    if msg.startswith("Application startup complete."):
        return "server_ready", {}
    return None
