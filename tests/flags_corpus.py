"""A generated corpus of launch commands for the differential test of ``flags lint`` against SGLang's own code.

Built from the mission's commands (configs/ct129.toml), their single-flag mutations, every speculative
algorithm, dense and hybrid models (local config.json files written by ``write_models``), aliases, prefixes
and wrong types. Each case is (name, argv, env, model_arch); argv names a model directory under ``root``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mtptui.config.loader import load_host_file
from mtptui.engines.sglang.flags.flagset import profile_argv
from tests.conftest import CONFIGS


def _qwen35_text(layers: int = 64) -> dict:
    types = ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(layers)]
    return {"model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408,
            "num_hidden_layers": layers, "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256,
            "vocab_size": 248320, "max_position_embeddings": 262144, "full_attention_interval": 4,
            "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
            "linear_num_key_heads": 16, "linear_num_value_heads": 48, "mtp_num_hidden_layers": 1,
            "layer_types": types, "rms_norm_eps": 1e-6, "hidden_act": "silu", "torch_dtype": "bfloat16",
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25}}


def _dense(arch: str, model_type: str, context: int) -> dict:
    return {"architectures": [arch], "model_type": model_type, "hidden_size": 4096, "intermediate_size": 12288,
            "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "head_dim": 128,
            "vocab_size": 151936, "max_position_embeddings": context, "rms_norm_eps": 1e-6, "rope_theta": 1e6,
            "torch_dtype": "bfloat16", "hidden_act": "silu", "tie_word_embeddings": False}


MODELS: dict[str, dict] = {
    # the mission's model: a hybrid GDN + attention checkpoint with an MTP head
    "Qwen3.6-27B": {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
                    "text_config": _qwen35_text(), "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                    "vision_config": {"model_type": "qwen3_5", "depth": 27, "hidden_size": 1152,
                                      "out_hidden_size": 5120}},
    "Qwen3-Next-80B-A3B": {**_qwen35_text(48), "architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next",
                           "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 2,
                           "num_experts": 512, "num_experts_per_tok": 10, "moe_intermediate_size": 512,
                           "shared_expert_intermediate_size": 512, "decoder_sparse_step": 1},
    "Llama-3.1-8B": _dense("LlamaForCausalLM", "llama", 131072),
    "Qwen3-8B": _dense("Qwen3ForCausalLM", "qwen3", 40960),
    # an EAGLE draft head for the dense models
    "EAGLE-Llama-3.1-8B": {**_dense("LlamaForCausalLMEagle", "llama", 131072), "num_hidden_layers": 1},
    # a dense checkpoint that bundles a DSPARK draft head (dspark_* keys): its own draft, gamma 4
    "Qwen3-8B-DSpark": {**_dense("Qwen3ForCausalLM", "qwen3", 40960), "dspark_block_size": 4},
}
# Adaptive speculation's config files (--speculative-adaptive-config), written beside the models; "@name" in a
# case's words is the file's path.
ADAPTIVE_CONFIGS: dict[str, object] = {
    "adaptive-flat.json": {"candidate_steps": [2, 4]},  # 0.5.12.post1's form (0.5.23 finds no batch-size key)
    "adaptive-tiers.json": {"1": {"candidate_steps": [2, 4, 6]}, "16": {"candidate_steps": [1, 2]}},
    "adaptive-bad.json": {"1": {"candidate_steps": "1,3"}},
    "adaptive-list.json": [1, 3, 7],
}
HYBRID, NEXT, DENSE, QWEN3 = "Qwen3.6-27B", "Qwen3-Next-80B-A3B", "Llama-3.1-8B", "Qwen3-8B"
DRAFT = "EAGLE-Llama-3.1-8B"


def write_models(root: Path) -> None:
    for name, config in MODELS.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "config.json").write_text(json.dumps(config), encoding="utf-8")
    for name, content in ADAPTIVE_CONFIGS.items():
        (root / name).write_text(json.dumps(content), encoding="utf-8")


def arch(model: str) -> str:
    return MODELS[model]["architectures"][0]


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    model: str
    env: dict = field(default_factory=dict, hash=False, compare=False)


STRATEGY = {"0.5.12.post1": "--mamba-scheduler-strategy", "0.5.23": "--mamba-radix-cache-strategy"}


def mission_bases(version: str) -> dict[str, tuple[list[str], dict]]:
    """The ct129 profiles as SGLang arguments (model path replaced later), with their environment."""
    host = load_host_file(CONFIGS / "ct129.toml")
    out = {}
    for name in ("restored", "redeploy-1step"):
        profile = host.profile(name)
        words = profile_argv(profile, "0.5.12.post1")[2:]
        if version != "0.5.12.post1":
            words = [STRATEGY[version] if w == "--mamba-scheduler-strategy" else w for w in words]
        out[name] = (words, dict(profile.env))
    return out


def _value_count(words: list[str], index: int) -> int:
    count = 0
    for word in words[index + 1:]:
        if word.startswith("--"):
            break
        count += 1
    return count


def drop(words: list[str], flag: str) -> list[str]:
    if flag not in words:
        return list(words)
    index = words.index(flag)
    return words[:index] + words[index + 1 + _value_count(words, index):]


def put(words: list[str], flag: str, *values: str) -> list[str]:
    """Set ``flag`` to ``values`` (no values: a store_true flag), in place when it is there."""
    if flag not in words:
        return list(words) + [flag, *values]
    index = words.index(flag)
    return words[:index] + [flag, *values] + words[index + 1 + _value_count(words, index):]


def rename(words: list[str], old: str, new: str) -> list[str]:
    return [new if word == old else word for word in words]


ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "nextn", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO", "FOO")
SPEC_FLAGS = ("--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens")


def _values(version: str) -> dict[str, tuple[str, ...]]:
    """Values to set each option to, one at a time (right, wrong, borderline)."""
    strategy = STRATEGY[version]
    values = {
        "--speculative-algorithm": ALGORITHMS, "--speculative-num-steps": ("1", "2", "5"),
        "--speculative-eagle-topk": ("1", "2", "4"), "--speculative-num-draft-tokens": ("2", "4", "8", "16"),
        "--max-running-requests": ("1", "48"), strategy: ("auto", "no_buffer", "extra_buffer"),
        "--mem-fraction-static": ("0.5", "1.0", "1.5", "0"), "--context-length": ("abc", "128k", "1Ki", "4096"),
        "--tp-size": ("1", "3", "4", "two"), "--dp-size": ("2",), "--page-size": ("1", "16", "64", "100"),
        "--chunked-prefill-size": ("1000", "4096", "-1"), "--served-model-name": ("a:b", "qwen"),
        "--attention-backend": ("triton", "fa3", "trtllm_mha", "flashinfer"),
        "--mamba-track-interval": ("2", "100", "256"), "--speculative-ngram-max-bfs-breadth": ("4",),
        "--speculative-draft-model-path": (DRAFT,), "--port": ("x", "30001"),
        "--mamba-full-memory-ratio": ("0", "-1", "0.5"), "--speculative-accept-threshold-single": ("0.5",),
        "--kv-cache-dtype": ("fp8_e4m3", "fp9"), "--max-total-tokens": ("100000",),
        "--schedule-policy": ("lpm", "fifo"), "--dtype": ("bfloat16", "half"), "--nnodes": ("2",),
    }
    if version == "0.5.23":
        values[strategy] += ("extra_buffer_lazy",)
        values.update({"--attn-dp-size": ("2",), "--cuda-graph-max-bs-decode": ("8",)})
    else:
        values["--cuda-graph-max-bs"] = ("8",)
    return values


SWITCHES = ("--disable-radix-cache", "--disable-overlap-schedule", "--speculative-use-rejection-sampling",
            "--enable-mixed-chunk", "--trust-remote-code", "--enable-dp-attention", "--foo", "--enable-dp-lm-head",
            "--disable-cuda-graph", "--enable-torch-compile", "--enable-metrics", "--speculative-adaptive")
SPELLINGS = (
    ("alias --tensor-parallel-size", lambda w: rename(w, "--tp-size", "--tensor-parallel-size")),
    ("prefix --tp", lambda w: rename(w, "--tp-size", "--tp")),
    ("alias --model", lambda w: rename(w, "--model-path", "--model")),
    ("prefix --speculative-algo", lambda w: rename(w, "--speculative-algorithm", "--speculative-algo")),
    ("prefix --mem-frac", lambda w: rename(w, "--mem-fraction-static", "--mem-frac")),
    ("ambiguous --cuda-graph-max-bs", lambda w: put(w, "--cuda-graph-max-bs", "8")),
    ("old strategy name", lambda w: rename(w, "--mamba-radix-cache-strategy", "--mamba-scheduler-strategy")),
    ("--opt=value", lambda w: _equals(w, "--tp-size")),
)


def mutations(version: str) -> list[tuple[str, callable]]:
    """Single-flag changes: (label, words -> words)."""
    out: list[tuple[str, callable]] = []
    for flag, options in _values(version).items():
        out.append((f"drop {flag}", lambda w, f=flag: drop(w, f)))
        out += [(f"{flag} {v}", lambda w, f=flag, v=v: put(w, f, v)) for v in options]
    out += [(flag, lambda w, f=flag: put(w, f)) for flag in SWITCHES]
    return out + list(SPELLINGS)


def _equals(words: list[str], flag: str) -> list[str]:
    if flag not in words:
        return list(words)
    index = words.index(flag)
    return words[:index] + [f"{flag}={words[index + 1]}"] + words[index + 2:]


def bases(version: str) -> dict[str, tuple[str, list[str], dict]]:
    """name -> (model, words without --model-path, env)."""
    out = {name: (HYBRID, words, env) for name, (words, env) in mission_bases(version).items()}
    strategy = STRATEGY[version]
    out["next-redeploy"] = (NEXT, mission_bases(version)["redeploy-1step"][0], {})
    out["llama-eagle"] = (DENSE, ["--tp-size", "2", "--speculative-algorithm", "EAGLE",
                                  "--speculative-draft-model-path", DRAFT, "--speculative-num-steps", "3",
                                  "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"], {})
    out["qwen3-plain"] = (QWEN3, ["--tp-size", "2", "--host", "0.0.0.0"], {})
    out["hybrid-plain"] = (HYBRID, ["--tp-size", "2", strategy, "extra_buffer"], {})
    return out


FEATURES = (("rejection", ["--speculative-use-rejection-sampling"]), ("attn-dp", ["--attn-dp-size", "2"]),
            ("dp-attention", ["--dp-size", "2", "--enable-dp-attention"]), ("page16", ["--page-size", "16"]),
            ("no-radix", ["--disable-radix-cache"]), ("no-overlap", ["--disable-overlap-schedule"]),
            ("topk2", ["--speculative-num-steps", "2", "--speculative-eagle-topk", "2",
                       "--speculative-num-draft-tokens", "4"]),
            ("adaptive", ["--speculative-adaptive"]), ("draft-model", ["--speculative-draft-model-path", DRAFT]),
            ("steps3", ["--speculative-num-steps", "3"]), ("draft6", ["--speculative-num-draft-tokens", "6"]))


def _algorithm_cases(version: str) -> list[tuple[str, str, list[str]]]:
    """Every algorithm on a dense and a hybrid model, alone and with one feature that interacts with it."""
    strategy = STRATEGY[version]
    out = []
    for model, extra in ((DENSE, []), (HYBRID, [strategy, "extra_buffer"]), (QWEN3, [])):
        for algo in ALGORITHMS:
            base = ["--tp-size", "2", "--speculative-algorithm", algo, *extra]
            out.append((f"{model} {algo}", model, base))
            for label, words in FEATURES:
                if label == "attn-dp" and version != "0.5.23":
                    continue
                out.append((f"{model} {algo} +{label}", model, base + words))
    return out


def _pairs(version: str) -> list[tuple[str, str, list[str]]]:
    """Two-flag changes the single mutations cannot reach: the issue's cases, then more interactions."""
    strategy = STRATEGY[version]
    dp = ["--attn-dp-size", "2"] if version == "0.5.23" else ["--dp-size", "2", "--enable-dp-attention"]
    bare = ["--tp-size", "2", "--speculative-algorithm", "NEXTN", "--speculative-num-steps", "1"]
    return [
        ("bare 1-step NEXTN", HYBRID, bare),
        ("bare 1-step NEXTN, extra_buffer", HYBRID, bare + [strategy, "extra_buffer"]),
        ("tp 3 with DP attention", DENSE, ["--tp-size", "3", *dp]),
        ("tp 3 with deprecated DP attention", DENSE, ["--tp-size", "3", "--dp-size", "2", "--enable-dp-attention"]),
        ("tp 4 with DP attention", DENSE, ["--tp-size", "4", *dp]),
        ("chunk 1000, page 16", DENSE, ["--chunked-prefill-size", "1000", "--page-size", "16"]),
        ("chunk 1024, page 16", DENSE, ["--chunked-prefill-size", "1024", "--page-size", "16"]),
        ("page 48 hybrid", HYBRID, ["--tp-size", "2", strategy, "extra_buffer", "--page-size", "48"]),
        ("draft tokens without algorithm", QWEN3, ["--speculative-num-draft-tokens", "4"]),
        ("top-k without algorithm", QWEN3, ["--speculative-eagle-topk", "2"]),
        ("no_buffer with overlap off", HYBRID, ["--tp-size", "2", strategy, "no_buffer", "--disable-overlap-schedule"]),
        ("served name from a path with a colon", DENSE, ["--tp-size", "2", "--served-model-name", "org/model:v1"]),
        ("no model path", DENSE, ["--tp-size", "2"]),
    ] + _more_pairs(strategy, dp)


def _more_pairs(strategy: str, dp: list[str]) -> list[tuple[str, str, list[str]]]:
    eagle = ["--speculative-algorithm", "EAGLE"]
    return [
        ("NGRAM paged triton", DENSE, ["--speculative-algorithm", "NGRAM", "--page-size", "16",
                                       "--attention-backend", "triton"]),
        ("EAGLE topk 4 paged triton", DENSE, eagle + ["--speculative-num-steps", "3", "--speculative-eagle-topk", "4",
                                                     "--speculative-num-draft-tokens", "8", "--page-size", "16",
                                                     "--attention-backend", "triton"]),
        ("zero steps", DENSE, eagle + ["--speculative-num-steps", "0", "--speculative-eagle-topk", "1",
                                       "--speculative-num-draft-tokens", "1"]),
        ("negative top-k", DENSE, eagle + ["--speculative-num-steps", "2", "--speculative-eagle-topk", "-1"]),
        ("rejection with thresholds", DENSE, eagle + ["--speculative-use-rejection-sampling",
                                                      "--speculative-accept-threshold-acc", "0.5"]),
        ("NEXTN with a draft model", HYBRID, ["--speculative-algorithm", "NEXTN", strategy, "extra_buffer",
                                              "--speculative-draft-model-path", DRAFT]),
        ("DFLASH with a draft model", DENSE, ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path",
                                              DRAFT, "--speculative-num-draft-tokens", "8"]),
        ("dp lm head with DP attention", DENSE, ["--tp-size", "2", *dp, "--enable-dp-lm-head"]),
        ("DFLASH, DP attention and lm head", DENSE, ["--tp-size", "2", *dp, "--enable-dp-lm-head",
                                                    "--speculative-algorithm", "DFLASH"]),
        ("float for an int", DENSE, ["--tp-size", "2.5"]),
    ] + _adaptive_cases(dp) + _dspark_cases() + _uno_cases()


def _adaptive_cases(dp: list[str]) -> list[tuple[str, str, list[str]]]:
    """--speculative-adaptive with what each release derives, refuses or turns it off for."""
    nextn = ["--speculative-algorithm", "NEXTN", "--speculative-adaptive"]
    cases = [(f"adaptive {name}", QWEN3, nextn + words) for name, words in (
        ("alone", []), ("steps 1", ["--speculative-num-steps", "1"]), ("steps 2", ["--speculative-num-steps", "2"]),
        ("steps 5 draft 3", ["--speculative-num-steps", "5", "--speculative-num-draft-tokens", "3"]),
        ("steps 3 topk 1", ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1"]),
        ("topk 2", ["--speculative-num-steps", "2", "--speculative-eagle-topk", "2"]),
        ("topk 1 only", ["--speculative-eagle-topk", "1"]), ("draft 4 only", ["--speculative-num-draft-tokens", "4"]),
        ("DP attention", ["--tp-size", "2", *dp]), ("two-batch overlap", ["--enable-two-batch-overlap"]),
        ("pdmux", ["--enable-pdmux"]), ("multi-layer EAGLE", ["--enable-multi-layer-eagle"]),
    )]
    for config in ADAPTIVE_CONFIGS:
        for steps in ([], ["--speculative-num-steps", "4"], ["--speculative-num-steps", "3"]):
            cases.append((f"adaptive {config} {' '.join(steps[1:]) or 'unset'}", QWEN3,
                          nextn + ["--speculative-adaptive-config", "@" + config, *steps]))
    return cases + [("adaptive without an algorithm", QWEN3, ["--speculative-adaptive"]),
                    ("adaptive EAGLE3 with a draft", DENSE, ["--speculative-algorithm", "EAGLE3",
                                                             "--speculative-adaptive",
                                                             "--speculative-draft-model-path", DRAFT])]


def _dspark_cases() -> list[tuple[str, str, list[str]]]:
    """DSPARK's derivations: a draft (given or bundled), gamma (block size, the draft's config, 7), steps/top-k 1."""
    dspark = ["--speculative-algorithm", "DSPARK", "--speculative-draft-model-path", DRAFT]
    return [(f"DSPARK {name}", QWEN3, dspark + words) for name, words in (
        ("block 5", ["--speculative-dspark-block-size", "5"]),
        ("block 5 draft 6", ["--speculative-dspark-block-size", "5", "--speculative-num-draft-tokens", "6"]),
        ("block 5 draft 4", ["--speculative-dspark-block-size", "5", "--speculative-num-draft-tokens", "4"]),
        ("block 0", ["--speculative-dspark-block-size", "0"]), ("draft 1", ["--speculative-num-draft-tokens", "1"]),
        ("draft 3 steps 2 topk 4", ["--speculative-num-draft-tokens", "3", "--speculative-num-steps", "2",
                                    "--speculative-eagle-topk", "4"]),
        ("pp 2", ["--pp-size", "2"]),
    )] + [("DSPARK bundled", "Qwen3-8B-DSpark", ["--speculative-algorithm", "DSPARK"]),
          ("DSPARK bundled draft 5", "Qwen3-8B-DSpark", ["--speculative-algorithm", "DSPARK",
                                                         "--speculative-num-draft-tokens", "5"])]


def _uno_cases() -> list[tuple[str, str, list[str]]]:
    """UNO: a LoRA on the target, TP 1 and FA3; linear (steps and top-k 1) or a tree (from the steps)."""
    uno = ["--speculative-algorithm", "UNO", "--uno-lora-path", "/loras/uno", "--attention-backend", "fa3"]
    return [(f"UNO {name}", QWEN3, uno + words) for name, words in (
        ("width 4", ["--speculative-num-draft-tokens", "4"]), ("no width", []),
        ("width 0", ["--speculative-num-draft-tokens", "0"]),
        ("width 4 steps 3 topk 1", ["--speculative-num-draft-tokens", "4", "--speculative-num-steps", "3",
                                    "--speculative-eagle-topk", "1"]),
        ("tree", ["--speculative-num-draft-tokens", "4", "--speculative-num-steps", "3", "--speculative-eagle-topk",
                  "2"]),
        ("tree without steps", ["--speculative-num-draft-tokens", "4", "--speculative-eagle-topk", "2"]),
        ("tree Q < F", ["--speculative-num-draft-tokens", "2", "--speculative-num-steps", "3",
                        "--speculative-eagle-topk", "2"]),
        ("topk 0", ["--speculative-num-draft-tokens", "4", "--speculative-eagle-topk", "0"]),
        ("with a draft model", ["--speculative-num-draft-tokens", "4", "--speculative-draft-model-path", DRAFT]),
        ("TP 2", ["--speculative-num-draft-tokens", "4", "--tp-size", "2"]),
        ("rejection sampling", ["--speculative-num-draft-tokens", "4", "--speculative-use-rejection-sampling"]),
        ("decode backend triton", ["--speculative-num-draft-tokens", "4", "--decode-attention-backend", "triton"]),
        ("adaptive", ["--speculative-num-draft-tokens", "4", "--speculative-adaptive"]),
    )] + [("UNO without a LoRA", QWEN3, ["--speculative-algorithm", "UNO", "--speculative-num-draft-tokens", "4"])]


def corpus(version: str, root: Path) -> list[Case]:
    """Every case for ``version``, models under ``root`` (deduplicated by argv)."""
    seen: dict[tuple, Case] = {}

    def add(name: str, model: str, words: list[str], env: dict) -> None:
        words = [str(root / w) if w == DRAFT else str(root / w[1:]) if w.startswith("@") else w for w in words]
        argv = tuple((["--model-path", str(root / model)] if name != "no model path" else []) + words)
        seen.setdefault(argv, Case(name, argv, model, env))

    for base, (model, words, env) in bases(version).items():
        add(base, model, words, env)
        for label, change in mutations(version):
            add(f"{base}: {label}", model, change(words), env)
    for name, model, words in _algorithm_cases(version) + _pairs(version):
        add(name, model, words, {})
    return list(seen.values())
