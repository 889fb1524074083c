"""What `vllm serve ARGS` does with its arguments, stage by stage, as vLLM 0.32.0 does it (no vLLM needed).

The same verdict as vllm_runner.py gets from vLLM itself: accepted or the first refusal (stage, exception
class, message, pydantic entries), and the resolved values. The differential test holds the two together.
Stages: argparse (FlexibleArgumentParser's rewriting, then argparse on the generated table), validate
(validate_parsed_serve_args), engine_config (ModelConfig, CacheConfig, ParallelConfig, SpeculativeConfig and
SchedulerConfig, in create_engine_config's order; only what needs no GPU and no hub).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable

from mtptui.engines.vllm.flags import argv as rewrite
from mtptui.engines.vllm.flags.errors import Verdict, VllmRefusal, validation_error
from mtptui.engines.vllm.flags.parser import known_negations, parse_serve
from mtptui.engines.vllm.flags.speculative import bound_errors, resolve
from mtptui.engines.vllm.flags.table import DEFAULT_VERSION, FlagTable, load_table

DEFAULT_MODEL = "Qwen/Qwen3-0.6B"  # vLLM's default --model
FactsOf = Callable[[str], "dict[str, Any] | None"]  # a model's config.json facts where the caller knows them
VALIDATE = (("enable_auto_tool_choice", "tool_call_parser", "--enable-auto-tool-choice",
             "Error: --enable-auto-tool-choice requires --tool-call-parser"),
            ("enable_log_outputs", "enable_log_requests", "--enable-log-outputs",
             "Error: --enable-log-outputs requires --enable-log-requests"))
TOO_LONG = ("User-specified max_model_len ({}) is greater than the derived max_model_len (max_position_embeddings="
            "{} or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var "
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the "
            "model uses relative position encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If "
            "the model uses absolute position encoding, positions exceeding derived_max_model_len will cause a CUDA "
            "array out-of-bounds error.")


def parse_words(words: list[str], version: str, warnings: list[str], serve: bool = True,
                read: rewrite.ReadConfig = rewrite.read_local) -> Any:
    """The argparse stage: vLLM's rewriting of the words after `vllm serve`, then argparse (a `--config` file's
    text from ``read``: this machine's file by default)."""
    args = list(words)
    if serve:
        args, said = rewrite.move_model(args)
        warnings += said
    if "--config" in args:
        args = rewrite.pull_config(args, known_negations(version), serve=serve, read=read)
    args, said = rewrite.normalise(args)
    warnings += said
    return parse_serve(args, version)


def validate(namespace: Any) -> None:
    """validate_parsed_serve_args: options that need another option."""
    for needs, given, flag, text in VALIDATE:
        if getattr(namespace, needs, False) and not getattr(namespace, given, None):
            raise VllmRefusal("TypeError", text, "validate", flag=flag)
    if (getattr(namespace, "sse_keep_alive_interval", 0) or 0) < 0:
        raise VllmRefusal("ValueError", "Error: --sse-keep-alive-interval must be a non-negative integer (0 disables "
                          "keep-alive comments).", "validate", flag="--sse-keep-alive-interval")


REPO_ID = re.compile(r"[\w.-]+(?:/[\w.-]+)?")


def check_model(model: str) -> None:
    """A model that is neither a directory here nor a hub id (`namespace/name`) stops vLLM early."""
    if not Path(model).expanduser().exists() and not REPO_ID.fullmatch(model):
        raise VllmRefusal("HFValidationError", f"Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
                          f"'{model}'. Use `repo_type` argument if needed.", "engine_args", flag="model")


def model_facts(model: str) -> dict[str, Any]:
    """The model's config.json when it is a local directory (vLLM reads it; a hub id is not judged offline)."""
    path = Path(model).expanduser()
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"_path": model}
    text = config.get("text_config") or {}
    return {**config, "_path": model, "_local": True,
            "max_position_embeddings": config.get("max_position_embeddings", text.get("max_position_embeddings"))}


def _values(namespace: Any, table: FlagTable, config: str) -> dict[str, Any]:
    return {dest: getattr(namespace, dest, None) for dest, group in table.groups.items() if group == config}


def _check_bounds(namespace: Any, table: FlagTable, config: str) -> None:
    entries = bound_errors(table.bounds.get(config, {}), _values(namespace, table, config))
    if entries:
        flag = table.by_dest(entries[0]["loc"][0])
        raise validation_error(config, entries, flag=flag.name if flag else None)


def _check_scheduler(namespace: Any, table: FlagTable) -> None:
    """SchedulerConfig: a batch budget below 1 also caps the sequence count below 1, and the other way round."""
    values = _values(namespace, table, "SchedulerConfig")
    tokens, seqs = values.get("max_num_batched_tokens"), values.get("max_num_seqs")
    if tokens is not None and tokens < 1 and seqs is None:
        values["max_num_seqs"] = tokens
    elif seqs is not None and seqs < 1 and tokens is None:
        values["max_num_batched_tokens"] = seqs
    entries = bound_errors(table.bounds["SchedulerConfig"], values)
    if entries:
        flag = table.by_dest(entries[0]["loc"][0])
        raise validation_error("SchedulerConfig", entries, flag=flag.name if flag else None)


def _model_len(namespace: Any, target: dict[str, Any], env: dict[str, str], table: FlagTable) -> int | None:
    _check_bounds(namespace, table, "ModelConfig")
    derived = target.get("max_position_embeddings")
    wanted = namespace.max_model_len
    if derived is None or wanted in (None, -1):
        return derived if isinstance(derived, int) else None
    if wanted > derived and env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN") not in ("1", "true", "True"):
        raise validation_error("ModelConfig", [{"loc": [], "type": "value_error",
                                                "msg": "Value error, " + TOO_LONG.format(wanted, float(derived))}],
                               flag="--max-model-len")
    return int(wanted)


def engine_config(namespace: Any, table: FlagTable, env: dict[str, str], warnings: list[str],
                  known: dict[str, Any] | None = None) -> dict[str, Any]:
    """create_engine_config's checks, in its order; the values it resolves (``known``: the model's facts)."""
    model = namespace.model or DEFAULT_MODEL
    target = known if known is not None else model_facts(model)
    max_len = _model_len(namespace, target, env, table)
    for config in ("CacheConfig", "ParallelConfig"):
        _check_bounds(namespace, table, config)
    spec = resolve(namespace, table, target, namespace.tensor_parallel_size, warnings)
    _check_scheduler(namespace, table)
    spec = spec or {}
    return {"max_model_len": max_len, "tensor_parallel_size": namespace.tensor_parallel_size,
            "gpu_memory_utilization": namespace.gpu_memory_utilization,
            "speculative_method": spec.get("method"), "num_speculative_tokens": spec.get("num_speculative_tokens"),
            "draft_model": spec.get("model"), "draft_tensor_parallel_size": spec.get("draft_tensor_parallel_size"),
            "prompt_lookup_min": spec.get("prompt_lookup_min"), "prompt_lookup_max": spec.get("prompt_lookup_max")}


def judge(words: list[str], version: str = DEFAULT_VERSION, env: dict[str, str] | None = None,
          serve: bool = True) -> Verdict:
    """vLLM's verdict on `vllm serve WORDS` (``serve`` False: the API-server module's), worked out by mtptui."""
    return judged(words, version, env, serve)[0]


def judged(words: list[str], version: str = DEFAULT_VERSION, env: dict[str, str] | None = None,
           serve: bool = True, facts: FactsOf | None = None) -> tuple[Verdict, Any]:
    """The verdict and the namespace argparse gave (None when argparse refused it). ``facts`` gives the
    config.json facts of models the caller knows without a local directory (a simulated host's)."""
    table = load_table(version)
    env = {**os.environ, **(env or {})}
    warnings: list[str] = []
    namespace = None
    try:
        namespace = parse_words(words, version, warnings, serve)
        if getattr(namespace, "model_tag", None) is not None:
            namespace.model = namespace.model_tag
        validate(namespace)
        known = facts(namespace.model or DEFAULT_MODEL) if facts is not None else None
        if known is None:
            check_model(namespace.model or DEFAULT_MODEL)
        resolved = engine_config(namespace, table, env, warnings, known)
    except VllmRefusal as refusal:
        return Verdict(False, refusal.stage, refusal.error_class, refusal.message, refusal.errors, None, warnings,
                       refusal.flag), namespace
    return Verdict(True, resolved=resolved, warnings=warnings), namespace
