"""A generated corpus of `vllm serve` command lines for the differential test of lint against vLLM's own code.

Each case is the words after `vllm serve`, on a tiny local Qwen2 model (config.json only, written by
``write_models``): the operator flags of ../shared/reference/vllm.md with good values, bad types, bad choices and
out-of-range numbers; aliases, underscores, `--flag=value`, prefixes, `-O`; unknown and removed (legacy) flags;
every form of speculation (`--speculative-config` JSON, dotted keys, the `--spec-*` shorthands) over ngram,
draft models, EAGLE, MTP and bad configs; `--config FILE.yaml` files; the options that need another option.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

QWEN2 = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 256, "intermediate_size": 512,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 64,
         "vocab_size": 373, "max_position_embeddings": 2048, "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
         "torch_dtype": "bfloat16", "hidden_act": "silu", "rope_theta": 10000.0, "eos_token_id": 2}
MODEL, DRAFT = "tiny-qwen2", "tiny-draft"
REFERENCE_NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3, "prompt_lookup_min": 1}


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict, hash=False, compare=False)


def write_models(root: Path) -> None:
    for name, layers in ((MODEL, 2), (DRAFT, 1)):
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "config.json").write_text(json.dumps({**QWEN2, "num_hidden_layers": layers}))


GOOD = {
    "--tensor-parallel-size": ["1", "2"], "-tp": ["2"], "--pipeline-parallel-size": ["1"], "-pp": ["1"],
    "--gpu-memory-utilization": ["0.5", "0.9", "1", "1.0"],
    "--max-model-len": ["512", "1k", "1K", "auto", "-1", "2048"],
    "--max-num-seqs": ["1", "8", "256"], "--max-num-batched-tokens": ["512", "2k", "8192"],
    "--served-model-name": ["qwen", "qwen extra"], "--host": ["127.0.0.1", "0.0.0.0"], "--port": ["8011", "30000"],
    "--dtype": ["auto", "bfloat16", "float16", "half", "float32", "float"], "--kv-cache-dtype": ["auto", "bfloat16"],
    "--shutdown-timeout": ["0", "30"], "--disable-access-log-for-endpoints": ["/health,/metrics"], "--seed": ["0", "7"],
    "--block-size": ["16", "32"], "--max-logprobs": ["5"], "--api-server-count": ["1"], "-O": ["0", "3"],
    "--optimization-level": ["1"], "--generation-config": ["vllm"], "--tool-call-parser": ["hermes"],
}
SWITCHES = ["--enable-prefix-caching", "--no-enable-prefix-caching", "--enable-log-requests", "--enforce-eager",
            "--trust-remote-code", "--disable-log-stats", "--enable-chunked-prefill", "--no-enable-chunked-prefill",
            "--headless", "-O0", "-O3", "-O=2"]
BAD = {
    "--tensor-parallel-size": ["abc", "1.5", "0", "-1"], "--gpu-memory-utilization": ["x", "0", "-0.5", "1.5"],
    "--max-model-len": ["abc", "4096", "1.5K", "2.5k"], "--max-num-seqs": ["many", "0"],
    "--max-num-batched-tokens": ["0", "zero"], "--port": ["abc", "80.5"], "--dtype": ["fp4", "bf16"],
    "--kv-cache-dtype": ["int3"], "--pipeline-parallel-size": ["0"], "--shutdown-timeout": ["soon"],
    "--block-size": ["0", "big"], "--seed": ["x"], "--data-parallel-size": ["0"],
}
UNKNOWN = [["--bogus"], ["--bogus", "1"], ["--speculative-model", "ngram"], ["--num-speculative-tokens", "3"],
           ["--speculative-model", "ngram", "--num-speculative-tokens", "3", "--ngram-prompt-lookup-max", "3"],
           ["--max-model", "1024"], ["--gpu-mem", "0.5"], ["--max", "3"], ["--tensor", "2"], ["--tp", "2"],
           ["--max-model-len"], ["--dtype"], ["--enable-prefix-caching=1"], ["--model-path", "x"],
           ["--speculative-algorithm", "EAGLE"], ["--context-length", "1024"]]


def _spec_cases(model: str, draft: str) -> list[tuple[str, list[str]]]:
    ngram = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3, "prompt_lookup_min": 1}
    configs: dict[str, object] = {
        "ngram reference": ngram, "ngram defaults": {"method": "ngram", "num_speculative_tokens": 3},
        "ngram only max": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 4},
        "ngram only min": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 2},
        "ngram min above max": {**ngram, "prompt_lookup_min": 4}, "ngram min 0": {**ngram, "prompt_lookup_min": 0},
        "ngram K 0": {**ngram, "num_speculative_tokens": 0}, "ngram K -1": {**ngram, "num_speculative_tokens": -1},
        "ngram K string": {**ngram, "num_speculative_tokens": "4"},
        "ngram K word": {**ngram, "num_speculative_tokens": "x"},
        "ngram K fraction": {**ngram, "num_speculative_tokens": 2.5},
        "ngram K float": {**ngram, "num_speculative_tokens": 2.0},
        "ngram K list": {**ngram, "num_speculative_tokens": [3]}, "ngram K 8": {**ngram, "num_speculative_tokens": 8},
        "ngram by model": {"model": "ngram", "num_speculative_tokens": 3}, "ngram no K": {"method": "ngram"},
        "ngram unknown key": {**ngram, "algorithm": "NGRAM"},
        "ngram dashed key": {"method": "ngram", "num-speculative-tokens": 2},
        "method upper": {"method": "NGRAM", "num_speculative_tokens": 3},
        "method unknown": {"method": "nextn", "num_speculative_tokens": 2},
        "eagle no model": {"method": "eagle", "num_speculative_tokens": 3},
        "eagle3 missing dir": {"method": "eagle3", "model": "/nonexistent/eagle3", "num_speculative_tokens": 3},
        "draft model": {"model": draft, "num_speculative_tokens": 2},
        "draft model method": {"method": "draft_model", "model": draft, "num_speculative_tokens": 2},
        "draft TP 1": {"model": draft, "num_speculative_tokens": 2, "draft_tensor_parallel_size": 1},
        "draft TP 2": {"model": draft, "num_speculative_tokens": 2, "draft_tensor_parallel_size": 2},
        "draft TP 3": {"model": draft, "num_speculative_tokens": 2, "draft_tensor_parallel_size": 3},
        "draft TP 0": {"model": draft, "num_speculative_tokens": 2, "draft_tensor_parallel_size": 0},
        "draft missing": {"model": "./no-such-draft", "num_speculative_tokens": 2},
        "medusa no model": {"method": "medusa", "num_speculative_tokens": 2},
        "mtp on qwen2": {"method": "mtp", "num_speculative_tokens": 1},
        "deepseek_mtp alias": {"method": "deepseek_mtp", "num_speculative_tokens": 1},
        "qwen3_5_mtp alias": {"method": "qwen3_5_mtp", "num_speculative_tokens": 2},
        "empty": {}, "suffix": {"method": "suffix", "num_speculative_tokens": 4},
    }
    cases = [(f"spec {name}", [model, "-sc" if i % 3 == 1 else "--speculative-config", json.dumps(config)])
             for i, (name, config) in enumerate(configs.items())]
    cases += [(f"spec {name} tp2", [model, "-tp", "2", "--speculative-config", json.dumps(configs[name])])
              for name in ("draft TP 1", "draft TP 2", "draft TP 3", "draft model")]
    cases += [
        ("spec not json", [model, "--speculative-config", "{method: ngram}"]),
        ("spec python dict", [model, "--speculative-config", "{'method': 'ngram'}"]),
        ("spec json list", [model, "--speculative-config", "[1, 2]"]),
        ("spec None", [model, "--speculative-config", "None"]),
        ("spec dotted", [model, "--speculative-config.method", "ngram", "--speculative-config.num_speculative_tokens",
                         "3"]),
        ("spec dotted equals", [model, "--speculative-config.method=ngram", "--speculative-config.prompt_lookup_max=2",
                                "--speculative-config.num_speculative_tokens=2"]),
        ("spec dotted bad K", [model, "--speculative-config.method", "ngram",
                               "--speculative-config.num_speculative_tokens", "0"]),
        ("spec underscore flag", [model, "--speculative_config", json.dumps(configs["ngram reference"])]),
        ("spec shorthand", [model, "--spec-method", "ngram", "--spec-tokens", "3"]),
        ("spec shorthand model", [model, "--spec-model", draft, "--spec-tokens", "2"]),
        ("spec shorthand clash", [model, "--spec-method", "ngram", "-sc", json.dumps(configs["ngram reference"])]),
        ("spec shorthand adds", [model, "--spec-tokens", "2", "-sc", '{"method": "ngram"}']),
        ("spec shorthand bad K", [model, "--spec-tokens", "two"]),
        ("spec shorthand unknown method", [model, "--spec-method", "nextn", "--spec-tokens", "2"]),
    ]
    return cases


def _config_files(root: Path, model: str) -> list[tuple[str, list[str]]]:
    files = {
        "flat.yaml": "max-model-len: 1024\nenable-prefix-caching: true\ngpu-memory-utilization: 0.8\n",
        "nested.yaml": "speculative-config:\n  method: ngram\n  num_speculative_tokens: 3\n",
        "bad-value.yaml": "max-model-len: lots\n",
        "false.yaml": "enable-prefix-caching: false\nenforce-eager: false\n",
        "with-model.yaml": f"model: {model}\nmax-model-len: 512\n",
        "bad-spec.yaml": "speculative-config:\n  method: ngram\n  num_speculative_tokens: 0\n",
        "list.yaml": "served-model-name:\n  - a\n  - b\n",
        "config.txt": "max-model-len: 1024\n",
    }
    for name, text in files.items():
        (root / name).write_text(text)
    cases = [(f"config {name}", [model, "--config", str(root / name)]) for name in files]
    cases += [("config then cli wins", [model, "--config", str(root / "flat.yaml"), "--max-model-len", "512"]),
              ("config model only", ["--config", str(root / "with-model.yaml")]),
              ("config no model", ["--config", str(root / "flat.yaml")]),
              ("config missing file", [model, "--config", str(root / "missing.yaml")]),
              ("config twice", [model, "--config", str(root / "flat.yaml"), "--config", str(root / "flat.yaml")]),
              ("config no file", [model, "--config"])]
    return cases


def corpus(root: Path) -> list[Case]:
    """Every case, named; model paths under ``root`` (``write_models(root)`` first)."""
    model, draft = str(root / MODEL), str(root / DRAFT)
    base = [model, "--max-model-len", "1024"]
    cases = [Case("bare model", (model,)), Case("base", tuple(base)),
             Case("--model flag", ("--model", model)),
             Case("--model=", (f"--model={model}", "--max-model-len", "1024")),
             Case("--model after flags", ("--max-model-len", "1024", "--model", model)),
             Case("served name, no model", ("--served-model-name", "x")),
             Case("missing model dir", (str(root / "no-such-model"),)),
             Case("long context allowed", (model, "--max-model-len", "4096"), {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"})]
    for flag, values in GOOD.items():
        cases += [Case(f"{flag} {value}", (*base, flag, *value.split())) for value in values]
        cases += [Case(f"{flag}={values[0]}", (*base, f"{flag}={values[0]}"))] if flag.startswith("--") else []
        dashed = flag.replace("-", "_").replace("__", "--", 1)
        cases += [Case(f"{dashed} {values[0]}", (*base, dashed, *values[0].split()))] if flag.startswith("--") else []
    cases += [Case(switch, (*base, switch)) for switch in SWITCHES]
    for flag, values in BAD.items():
        cases += [Case(f"{flag} bad {value}", (*base, flag, value)) for value in values]
    cases += [Case(f"unknown {' '.join(words)}", (*base, *words)) for words in UNKNOWN]
    cases += [Case(name, tuple(words)) for name, words in _spec_cases(model, draft)]
    cases += [Case(name, tuple(words)) for name, words in _config_files(root, model)]
    cases += [Case("auto tool choice alone", (*base, "--enable-auto-tool-choice")),
              Case("auto tool choice with parser",
                   (*base, "--enable-auto-tool-choice", "--tool-call-parser", "hermes")),
              Case("log outputs alone", (*base, "--enable-log-outputs")),
              Case("log outputs with requests", (*base, "--enable-log-outputs", "--enable-log-requests")),
              Case("keep-alive negative", (*base, "--sse-keep-alive-interval", "-1")),
              Case("repeated flag", (*base, "--max-model-len", "512")),
              Case("reference command", (model, "--host", "127.0.0.1", "--port", "8011", "--max-model-len", "1024",
                                         "--speculative-config", json.dumps(REFERENCE_NGRAM)))]
    return cases
