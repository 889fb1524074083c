"""0.5.23's DSPARK and UNO handlers (``_handle_dspark``, ``_handle_uno`` of ``arg_groups/speculative_hook.py``):
what they derive when values are left out, what they warn and what they raise, in their order.

DSPARK drafts a block with a separate model (or one the checkpoint bundles: ``dspark_*`` keys in its
config.json, or a ``dspark/`` folder beside it): steps and top-k are 1, the draft tokens are gamma + 1 (gamma
from ``--speculative-dspark-block-size``, else the draft's config, else 7). UNO reuses the target with a LoRA:
linear (top-k 1, steps 1) or a tree; only TP 1, FA3 attention, no draft model. Checked against SGLang's code by
the differential test (tests/flags_corpus.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.flags.parallel import attention_backend, attention_dp
from mtptui.engines.sglang.flags.spec_values import DRAFT, MRR, MRR_SPEC, MRR_WARNING, STEPS, TOPK, Effective, \
    SpecError, SpecResolution

DRAFT_PATH = "--speculative-draft-model-path"
DSPARK_GAMMA = 7  # DEFAULT_DSPARK_GAMMA
BUNDLE_KEYS = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id", "dspark_target_layer_ids")


def _error(flag: str, text: str, fix: str | None = None) -> SpecError:
    return SpecError(flag, f"ValueError: {text}", text, fix)


def config_json(path: object) -> dict[str, Any] | None:
    """A checkpoint's config.json where it is readable here, else None."""
    try:
        found = json.loads(Path(str(path), "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return None
    return found if isinstance(found, dict) else None


DSPARK_ONE = "DSpark only supports {name} == 1; overriding {name}={written} to 1."
UNO_ONE = "UNO uses {name}=1; overriding {written}."


def _forced_one(fs: FlagSet, result: SpecResolution, flag: str, warning: str) -> None:
    """Steps or top-k: 1 whatever was written (SGLang's ``warning`` when something else was)."""
    written = fs.get(flag)
    if written not in (None, 1):
        result.warnings.append((flag, warning.format(name=flag[2:].replace("-", "_"), written=written)))
    result.values[flag] = Effective(1) if written == 1 else Effective(1, "auto")


def spec_dspark(fs: FlagSet, result: SpecResolution) -> None:
    if attention_dp(fs) > 1 and not fs.get("--enable-dp-lm-head"):
        result.error = _error("--enable-dp-lm-head", "DSpark with dp attention requires --enable-dp-lm-head.",
                              "add --enable-dp-lm-head")
        return
    if int(fs.get("--pp-size", 1) or 1) != 1:
        result.error = _error("--pp-size", "DSpark pipeline parallelism requires PD prefill; decode and "
                              "non-disaggregated serving require pp_size == 1.", "set --pp-size 1")
        return
    draft_path = fs.get(DRAFT_PATH) or _bundled_draft(fs.model_path)
    if draft_path is None:
        result.error = _error(DRAFT_PATH, "DSpark dense speculative decoding requires setting "
                              "--speculative-draft-model-path.", f"add {DRAFT_PATH} PATH")
        return
    _forced_one(fs, result, STEPS, DSPARK_ONE)
    _forced_one(fs, result, TOPK, DSPARK_ONE)
    result.error = _dspark_draft_tokens(fs, result, draft_path)
    if result.error is None and fs.get(MRR) is None:
        result.values[MRR] = Effective(MRR_SPEC, "auto")
        result.warnings.append((MRR, MRR_WARNING))


def _bundled_draft(model_path: str | None) -> str | None:
    """The draft a target checkpoint brings: itself (``dspark_*`` keys) or its ``dspark/`` folder."""
    config = config_json(model_path) if model_path else None
    if config is not None and any(config.get(key) is not None for key in BUNDLE_KEYS):
        return model_path
    folder = Path(str(model_path), "dspark") if model_path else None
    return str(folder) if folder is not None and (folder / "config.json").is_file() else None


def _gamma(fs: FlagSet, result: SpecResolution, draft_path: str) -> int | SpecError | None:
    block = fs.get("--speculative-dspark-block-size")
    if block is not None:
        if int(block) <= 0:
            return _error("--speculative-dspark-block-size", "DSpark requires --speculative-dspark-block-size to "
                          f"be positive, got {block}.")
        return int(block)
    gamma = (config_json(draft_path) or {}).get("dspark_block_size")
    if isinstance(gamma, int):
        return gamma
    if fs.get(DRAFT) is None:
        result.warnings.append((DRAFT, f"DSpark gamma is not set; defaulting to {DSPARK_GAMMA}."))
        return DSPARK_GAMMA
    return None


def _dspark_draft_tokens(fs: FlagSet, result: SpecResolution, draft_path: str) -> SpecError | None:
    gamma = _gamma(fs, result, draft_path)
    if isinstance(gamma, SpecError):
        return gamma
    draft = fs.get(DRAFT)
    if gamma is not None:
        if draft is not None and int(draft) != gamma + 1:
            return _error(DRAFT, f"DSpark speculative_num_draft_tokens must equal gamma + 1 (= {gamma + 1} for "
                          f"gamma={gamma}), but got speculative_num_draft_tokens={draft}.", f"set {DRAFT} {gamma + 1}")
        result.values[DRAFT] = Effective(gamma + 1) if draft == gamma + 1 else Effective(gamma + 1, "auto")
        return None
    if int(draft) < 2:
        return _error(DRAFT, f"DSpark speculative_num_draft_tokens must be >= 2 (= gamma + 1), got {draft}.")
    result.values[DRAFT] = Effective(draft)
    return None


def spec_uno(fs: FlagSet, result: SpecResolution) -> None:
    for check in (_uno_inputs, _uno_width, _uno_shape, _uno_serving):
        result.error = check(fs, result)
        if result.error is not None:
            return


def _uno_inputs(fs: FlagSet, result: SpecResolution) -> SpecError | None:
    if fs.get(DRAFT_PATH) is not None:
        return _error(DRAFT_PATH, "UNO reuses the target model and does not accept --speculative-draft-model-path.",
                      f"remove {DRAFT_PATH}")
    if fs.get("--uno-lora-path") is None:
        return _error("--uno-lora-path", "UNO requires --uno-lora-path.", "add --uno-lora-path PATH")
    for flag, why in (("--enable-deterministic-inference", "its sampling path does not use per-request seeds"),
                      ("--enable-strict-thinking", "it requires grammar decoding")):
        if fs.get(flag):
            return _error(flag, f"UNO does not support {flag} because {why}.", f"remove {flag}")
    return None


def _uno_width(fs: FlagSet, result: SpecResolution) -> SpecError | None:
    width = fs.get(DRAFT)
    if width is None or int(width) < 1:
        return _error(DRAFT, "UNO requires --speculative-num-draft-tokens to be a positive integer denoting the "
                      "linear width or tree verify width Q.", f"set {DRAFT} Q")
    result.values[DRAFT] = Effective(int(width))
    topk = 1 if fs.get(TOPK) is None else int(fs.get(TOPK))
    if topk < 1:
        return _error(TOPK, f"UNO requires --speculative-eagle-topk to be at least 1, got {topk}.")
    return None


def _uno_shape(fs: FlagSet, result: SpecResolution) -> SpecError | None:
    """Linear UNO (top-k 1): steps and top-k 1. A tree (top-k > 1): its own checks, from the steps."""
    if (1 if fs.get(TOPK) is None else int(fs.get(TOPK))) > 1:
        return _uno_tree(fs, result)
    _forced_one(fs, result, STEPS, UNO_ONE)
    _forced_one(fs, result, TOPK, UNO_ONE)
    return None


def _uno_tree(fs: FlagSet, result: SpecResolution) -> SpecError | None:
    steps, width, topk = fs.get(STEPS), int(fs.get(DRAFT)), int(fs.get(TOPK))
    if steps is None:
        return _error(STEPS, "UNO tree mode requires --speculative-num-steps so its draft width F can be derived as "
                      "speculative_num_steps + 1.", f"add {STEPS} N")
    if int(steps) < 1:
        return _error(STEPS, f"UNO tree mode requires --speculative-num-steps to be positive, got {steps}.")
    if width < int(steps) + 1:
        return _error(DRAFT, f"UNO tree mode requires Q >= F; got Q={width}, F={int(steps) + 1}.")
    result.values[STEPS], result.values[TOPK] = Effective(int(steps)), Effective(topk)
    return None


def _uno_serving(fs: FlagSet, result: SpecResolution) -> SpecError | None:
    if int(fs.get("--tp-size", 1) or 1) != 1 or int(fs.get("--pp-size", 1) or 1) != 1:
        return _error("--tp-size", "UNO requires TP=PP=1.", "set --tp-size 1")
    if attention_dp(fs) > 1 or int(fs.get("--attn-cp-size", 1) or 1) != 1:
        return _error("--attn-dp-size", "UNO does not support DP attention or context parallelism.")
    if fs.get("--enable-lora") or fs.get("--lora-paths"):
        return _error("--enable-lora", "UNO does not support public Multi-LoRA serving.")
    if fs.get("--speculative-use-rejection-sampling"):
        return _error("--speculative-use-rejection-sampling", "UNO manages its own stochastic verification and does "
                      "not use --speculative-use-rejection-sampling.")
    if fs.get("--enable-mixed-chunk"):
        result.warnings.append(("--enable-mixed-chunk", "Mixed chunked prefill is disabled for UNO speculative "
                                "decoding."))
    prefill = str(fs.get("--prefill-attention-backend") or attention_backend(fs))
    decode = str(fs.get("--decode-attention-backend") or attention_backend(fs))
    if (prefill, decode) != ("fa3", "fa3"):
        return _error("--attention-backend", "UNO requires FA3 for both prefill and decode attention; got "
                      f"prefill={prefill!r}, decode={decode!r}.", "add --attention-backend fa3")
    return None
