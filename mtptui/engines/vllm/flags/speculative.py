"""`--speculative-config` as vLLM 0.32.0 resolves it (SpeculativeConfig: pydantic fields, then __post_init__).

Facts of vLLM's code, re-stated here: `--spec-method/--spec-model/--spec-tokens` fold into the JSON (each
exclusive with its key there); unknown keys, an unknown method and out-of-range numbers are pydantic errors of
`SpeculativeConfig`; a method is inferred when missing (`"model": "ngram"` -> ngram, any other model ->
draft_model); the per-model MTP method names are deprecated aliases of `mtp`; ngram takes its lookup window
defaults (5, 5) and needs min <= max; methods with a draft model need it as a readable model directory (mtptui
cannot judge a hub id offline, and does not refuse one); the draft's tensor parallel size is 1 or the target's.
The old `--speculative-model`/`--num-speculative-tokens` flags are gone in 0.32.0: `legacy_config` turns them into
the JSON for the fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mtptui.engines.vllm.flags.errors import VllmRefusal, validation_error
from mtptui.engines.vllm.flags.table import FlagTable

SHORTHANDS = (("--spec-method", "method", "spec_method"), ("--spec-model", "model", "spec_model"),
              ("--spec-tokens", "num_speculative_tokens", "spec_tokens"))
INT_FIELDS = frozenset({"num_speculative_tokens", "draft_tensor_parallel_size", "prompt_lookup_max",
                        "prompt_lookup_min", "max_model_len", "tensor_parallel_size", "dspark_draft_topk"})
MODEL_LESS = {"ngram": "ngram", "ngram_gpu": "ngram_gpu", "suffix": "suffix",
              "extract_hidden_states": "extract_hidden_states"}
BOUND_TEXT = {"gt": ("greater_than", "greater than {}"), "ge": ("greater_than_equal", "greater than or equal to {}"),
              "lt": ("less_than", "less than {}"), "le": ("less_than_equal", "less than or equal to {}")}
NOT_FOUND = ("Invalid repository ID or local directory specified: '{}'.\nPlease verify the following requirements:"
             "\n1. Provide a valid Hugging Face repository ID.\n2. Specify a local directory that contains a "
             "recognized configuration file.\n   - For Hugging Face models: ensure the presence of a 'config.json'."
             "\n   - For Mistral models: ensure the presence of a 'params.json'.\n")
LEGACY = {"--speculative-model": "model", "--num-speculative-tokens": "num_speculative_tokens",
          "--speculative-draft-tensor-parallel-size": "draft_tensor_parallel_size",
          "--ngram-prompt-lookup-max": "prompt_lookup_max", "--ngram-prompt-lookup-min": "prompt_lookup_min",
          "--speculative-max-model-len": "max_model_len", "--speculative-method": "method"}


def bound_errors(bounds: dict[str, dict[str, float]], values: dict[str, Any]) -> list[dict[str, Any]]:
    """pydantic's entries for numbers outside a config class's Field bounds (with the input, as pydantic names
    it in its message)."""
    entries = []
    for name, limits in bounds.items():
        value = values.get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        for key, limit in limits.items():
            broken = {"gt": value <= limit, "ge": value < limit, "lt": value >= limit, "le": value > limit}[key]
            if broken:
                kind, text = BOUND_TEXT[key]
                entries.append({"loc": [name], "type": kind, "msg": "Input should be " + text.format(limit),
                                "input": value})
                break
    return entries


def _coerce_int(name: str, value: Any) -> tuple[Any, dict[str, Any] | None]:
    """pydantic's lax int: "3" and 3.0 pass as 3; 2.5, "x" and lists do not."""
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value, None
    if isinstance(value, float):
        if value.is_integer():
            return int(value), None
        return value, {"loc": [name], "type": "int_from_float",
                       "msg": "Input should be a valid integer, got a number with a fractional part", "input": value}
    if isinstance(value, str):
        try:
            return int(value.strip()), None
        except ValueError:
            return value, {"loc": [name], "type": "int_parsing",
                           "msg": "Input should be a valid integer, unable to parse string as an integer",
                           "input": value}
    return value, {"loc": [name], "type": "int_type", "msg": "Input should be a valid integer", "input": value}


def merged_config(namespace: Any) -> dict[str, Any] | None:
    """The JSON with the shorthand flags folded in (create_speculative_config's first step)."""
    config = getattr(namespace, "speculative_config", None)
    for flag, key, dest in SHORTHANDS:
        value = getattr(namespace, dest, None)
        if value is None:
            continue
        config = {} if config is None else config
        if key in config:
            raise VllmRefusal("ValueError", f"{flag} and --speculative-config['{key}'] are mutually exclusive",
                              "engine_config", flag="--speculative-config")
        config[key] = value
    if config is None:
        return None
    if not isinstance(config, dict):
        raise VllmRefusal("AttributeError", f"'{type(config).__name__}' object has no attribute 'items'",
                          "engine_config", flag="--speculative-config")
    return {str(k).replace("-", "_"): v for k, v in config.items()}


def _validate_fields(config: dict[str, Any], table: FlagTable) -> dict[str, Any]:
    facts = table.speculative
    entries: list[dict[str, Any]] = []
    values = dict(config)
    for name in facts["fields"]:
        if name in values and name in INT_FIELDS:
            values[name], problem = _coerce_int(name, values[name])
            entries += [problem] if problem else []
        if name == "method" and values.get("method") is not None and values["method"] not in facts["methods"]:
            choices = [repr(m) for m in facts["methods"]]
            entries.append({"loc": ["method"], "type": "literal_error",
                            "msg": f"Input should be {', '.join(choices[:-1])} or {choices[-1]}",
                            "input": values["method"]})
    entries += bound_errors(table.bounds["SpeculativeConfig"], values)
    entries += [{"loc": [key], "type": "unexpected_keyword_argument", "msg": "Unexpected keyword argument",
                 "input": config[key]} for key in config if key not in facts["fields"]]
    if entries:
        raise validation_error("SpeculativeConfig", entries, flag="--speculative-config")
    return values


def _value_error(text: str) -> VllmRefusal:
    return validation_error("SpeculativeConfig", [{"loc": [], "type": "value_error", "msg": f"Value error, {text}"}],
                            flag="--speculative-config")


def _infer_method(spec: dict[str, Any], table: FlagTable, warnings: list[str]) -> str:
    method = spec.get("method")
    if method is None:
        method = "ngram" if spec.get("model") in ("ngram", "[ngram]") else "draft_model"
    if method in table.speculative["mtp_methods"] and method != "mtp":
        warnings.append(f"method `{method}` is deprecated and replaced with mtp.")
        method = "mtp"
    return "ngram" if method == "[ngram]" else str(method)


def _ngram_window(spec: dict[str, Any]) -> None:
    low, high = spec.get("prompt_lookup_min"), spec.get("prompt_lookup_max")
    if low is None and high is None:
        low = high = 5
    low = high if low is None else low
    high = low if high is None else high
    if low is not None and high is not None and low > high:
        raise _value_error(f"prompt_lookup_min={low} must be <= prompt_lookup_max={high}")
    spec["prompt_lookup_min"], spec["prompt_lookup_max"] = low, high


def _draft(spec: dict[str, Any], target_tp: int, target_path: object = None) -> None:
    """A method with a draft model: the model must be readable (the target itself, for MTP, was read already);
    its tensor parallel size 1 or the target's."""
    model = str(spec["model"])
    local = model.startswith(("/", "./", "../", "~")) and model != target_path
    if local and not (Path(model).expanduser() / "config.json").is_file():
        raise _value_error(NOT_FOUND.format(model))
    draft_tp = spec.get("draft_tensor_parallel_size")
    if draft_tp is None:
        spec["draft_tensor_parallel_size"] = target_tp
    elif draft_tp not in (1, target_tp):
        raise _value_error(f"speculative_draft_tensor_parallel_size={draft_tp} cannot be other value than 1 or "
                           f"target model tensor_parallel_size")


def _mtp_target(target: dict[str, Any], table: FlagTable) -> bool:
    """Whether the target model has an MTP draft vLLM knows (its model type has an `_mtp` method)."""
    model_type = str(target.get("model_type") or "")
    return f"{model_type}_mtp" in table.speculative["mtp_methods"] or model_type.startswith("deepseek_v3")


def resolve(namespace: Any, table: FlagTable, target: dict[str, Any], target_tp: int,
            warnings: list[str]) -> dict[str, Any] | None:
    """The speculative settings vLLM settles on (method, K, model, draft TP, ngram window), or its refusal."""
    config = merged_config(namespace)
    if config is None:
        return None
    spec = _validate_fields(config, table)
    method = spec["method"] = _infer_method(spec, table, warnings)
    if spec.get("model") is None and spec.get("num_speculative_tokens") is not None:
        if method == "mtp":
            spec["model"] = target.get("_path")
        elif method in MODEL_LESS:
            spec["model"] = MODEL_LESS[method]
        else:
            raise _value_error("num_speculative_tokens was provided but without speculative model.")
    if method in ("ngram", "ngram_gpu"):
        _ngram_window(spec)
    elif method == "mtp" and not _mtp_target(target, table):
        raise VllmRefusal("NotImplementedError", "Unsupported speculative method: 'mtp'", "engine_config",
                          flag="--speculative-config")
    elif method not in MODEL_LESS and spec.get("model") is not None:
        _draft(spec, target_tp, target.get("_path"))
        spec.setdefault("prompt_lookup_min", 0)
        spec.setdefault("prompt_lookup_max", 0)
    if spec.get("num_speculative_tokens") is None and not _draft_predicts(spec):
        raise _value_error("num_speculative_tokens must be provided with speculative model unless the draft model "
                           "config contains an n_predict parameter.")
    return spec


def _draft_predicts(spec: dict[str, Any]) -> bool:
    """Whether the draft's config.json names how many tokens it predicts (`n_predict`)."""
    try:
        config = json.loads((Path(str(spec.get("model"))).expanduser() / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and config.get("n_predict") is not None


def legacy_config(words: list[str]) -> tuple[list[str], dict[str, Any]]:
    """The words without vLLM's removed speculative flags, and the `--speculative-config` they meant."""
    kept, config, skip = [], {}, False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        name, eq, value = word.partition("=")
        if name in LEGACY:
            if not eq:
                value, skip = (words[i + 1] if i + 1 < len(words) else ""), True
            config[LEGACY[name]] = int(value) if value.isdigit() else value
            continue
        kept.append(word)
    if config and "method" not in config and config.get("model") in ("ngram", "[ngram]"):
        config["method"] = "ngram"
    return kept, config


def legacy_fix(config: dict[str, Any]) -> str:
    return f"--speculative-config '{json.dumps(config)}'"
