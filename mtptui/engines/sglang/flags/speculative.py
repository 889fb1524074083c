"""SGLang's speculative handlers per algorithm, in their order: what they resolve, warn and raise.

0.5.12.post1: ``ServerArgs._handle_speculative_decoding``; 0.5.23: ``arg_groups/speculative_hook.py``
(``_handle_dflash``, ``_handle_eagle_family``, ``_handle_ngram``). Releases before 0.5.12.post1 keep the
simpler model of sglang-flags.md §2.2. Checked against SGLang's own code by the differential test.
"""

from __future__ import annotations

from typing import cast

from mtptui.engines.sglang.flags.spec_values import (
    DRAFT, DRAFT_WARNING, MRR, MRR_SPEC, MRR_WARNING, NEW_AUTO_TABLE, NGRAM_WARNING, STEPS, TOPK, TYPE_ERROR,
    TYPE_ERROR_VERSIONS, Effective, SpecError, SpecResolution, auto_spec_params,
)
from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.flags.models import model_info
from mtptui.engines.sglang.flags.parallel import attention_dp, attention_backend, page_size

REJECTION = "--speculative-use-rejection-sampling"
DRAFT_PATH = "--speculative-draft-model-path"
NEW_REJECTION_CHECKS = frozenset({"0.5.23"})
PAGE_TREE_BACKENDS = {"0.5.23": ("flashinfer", "fa3", "triton"), "0.5.12.post1": ("flashinfer", "fa3")}
PAGE_TREE_MESSAGES = {
    "0.5.23": "ValueError: speculative_eagle_topk > 1 with page_size > 1 is only supported on {allowed}; "
              "got attention_backend={backend!r}. Use page_size == 1 or one of those backends.",
    "0.5.12.post1": "ValueError: speculative_eagle_topk > 1 with page_size > 1 is unstable and produces incorrect "
                    "results for paged attention backends. This combination is only supported for the "
                    "'flashinfer' backend.",
}
NGRAM_PAGE = ("ValueError: speculative_eagle_topk({topk}) > 1 with page_size({page}) > 1 is unstable and produces "
              "incorrect results for paged attention backends. This combination is only supported for the "
              "'flashinfer' backend.")


def _max_running(fs: FlagSet, result: SpecResolution) -> None:
    if fs.get(MRR) is None:
        result.values[MRR] = Effective(MRR_SPEC, "auto")
        result.warnings.append((MRR, MRR_WARNING))


def _dp_error(what: str) -> SpecError:
    return SpecError("--attn-dp-size", f"ValueError: Currently {what} speculative decoding does not support dp "
                     "attention.", f"{what} speculative decoding cannot run with DP attention.",
                     "remove the DP attention options (--enable-dp-attention / --attn-dp-size)")


def spec_dflash(fs: FlagSet, result: SpecResolution) -> None:
    """DFLASH: DP attention, a draft model; steps and top-k are forced to 1."""
    if attention_dp(fs) > 1:
        if fs.version == "0.5.12.post1":
            result.error = _dp_error("DFLASH")
            return
        if not fs.get("--enable-dp-lm-head"):
            result.error = SpecError("--enable-dp-lm-head", "ValueError: DFLASH with dp attention requires "
                                     "--enable-dp-lm-head.", "DFLASH with DP attention needs the DP LM head.",
                                     "add --enable-dp-lm-head")
            return
    if fs.get(DRAFT_PATH) is None:
        result.error = SpecError(DRAFT_PATH, "ValueError: DFLASH speculative decoding requires setting "
                                 "--speculative-draft-model-path.", "DFLASH drafts with a separate model.",
                                 f"add {DRAFT_PATH} PATH")
        return
    result.values[STEPS] = Effective(1, "auto") if fs.get(STEPS) in (None, 1) else Effective(1, "auto", "forced")
    result.values[TOPK] = Effective(1, "auto")
    draft = fs.get(DRAFT)
    result.values[DRAFT] = Effective(draft) if draft is not None else _dflash_block(fs.get(DRAFT_PATH))
    _max_running(fs, result)


def _dflash_block(draft_path: object) -> Effective:
    """DFLASH's draft tokens when unset: the draft's block size (its config.json), else 16; unknown where the
    draft's config is not readable here."""
    from mtptui.engines.sglang.flags.spec_others import config_json

    config = config_json(draft_path)
    if config is None:
        return Effective(None, "auto", "the draft model's block size, else 16")
    nested = config.get("dflash_config")
    block = (nested if isinstance(nested, dict) else {}).get("block_size", config.get("block_size"))
    return Effective(int(block) if isinstance(block, int) else 16, "auto")


def spec_eagle(fs: FlagSet, result: SpecResolution, model_arch: str | None,
               adaptive: dict[str, Effective] | None = None) -> None:
    """EAGLE / EAGLE3 / STANDALONE (and NEXTN, resolved to EAGLE); ``adaptive``: the values 0.5.23's adaptive
    speculation gave (mtptui.engines.sglang.flags.spec_adaptive), which replace the auto-choice."""
    if fs.version not in NEW_AUTO_TABLE:
        return _eagle_before_0_5_12(fs, result, model_arch)
    if result.algorithm == "STANDALONE" and attention_dp(fs) > 1:
        result.error = _dp_error("standalone")
        return
    _max_running(fs, result)
    if adaptive is not None:
        result.values.update(adaptive)
        if adaptive[STEPS].value is None:  # the candidates are in a file not readable here
            return
    elif not _steps_topk_draft(fs, result, model_arch):
        return
    topk = cast(int, result.values[TOPK].value)  # _steps_topk_draft settled it as a number
    for check in (_trtllm, _rejection, _draft_adjusted, _page_tree):
        result.error = check(fs, result, topk)
        if result.error is not None:
            return


def _steps_topk_draft(fs: FlagSet, result: SpecResolution, model_arch: str | None) -> bool:
    """The auto-choice, the bare assert and the None top-k TypeError; False when one of them stops SGLang."""
    steps, topk, draft = fs.get(STEPS), fs.get(TOPK), fs.get(DRAFT)
    if steps is None:
        if topk is not None or draft is not None:
            result.error = SpecError(DRAFT if draft is not None else TOPK, "AssertionError")
            return False
        arch = model_info(fs.model_path, model_arch).arch
        auto = auto_spec_params(fs.version, result.algorithm or "", arch)
        for flag, value in zip((STEPS, TOPK, DRAFT), auto):
            result.values[flag] = Effective(value, "auto")
        return True
    result.values[STEPS] = Effective(steps)
    if topk is None:
        result.error = SpecError(TOPK, TYPE_ERROR)
        return False
    result.values[TOPK] = Effective(topk)
    result.values[DRAFT] = Effective(draft) if draft is not None else Effective(None, "unset")
    return True


def _trtllm(fs: FlagSet, result: SpecResolution, topk: int) -> SpecError | None:
    if attention_backend(fs) == "trtllm_mha" and topk > 1:
        return SpecError(TOPK, "ValueError: trtllm_mha backend only supports topk = 1 for speculative decoding.",
                         "the trtllm_mha attention backend only supports top-k 1.", f"set {TOPK} 1")
    return None


def _rejection(fs: FlagSet, result: SpecResolution, topk: int) -> SpecError | None:
    """0.5.23: rejection sampling only for EAGLE / EAGLE3, with top-k 1 and the default accept thresholds."""
    if fs.version not in NEW_REJECTION_CHECKS or not fs.get(REJECTION):
        return None
    if result.algorithm not in ("EAGLE", "EAGLE3"):
        return SpecError(REJECTION, "NotImplementedError: --speculative-use-rejection-sampling is only supported "
                         f"for EAGLE / EAGLE3 / NEXTN, not speculative_algorithm={result.algorithm}.",
                         f"rejection sampling is not available for {result.algorithm}.", f"remove {REJECTION}")
    if topk != 1:
        return SpecError(TOPK, "ValueError: --speculative-use-rejection-sampling requires --speculative-eagle-topk=1.",
                         "rejection sampling needs top-k 1.", f"set {TOPK} 1")
    thresholds = [fs.get(f"--speculative-accept-threshold-{kind}", 1.0) for kind in ("single", "acc")]
    if thresholds != [1.0, 1.0]:
        return SpecError(REJECTION, "ValueError: --speculative-use-rejection-sampling is incompatible with "
                         "--speculative-accept-threshold-single / --speculative-accept-threshold-acc; rejection "
                         "sampling ignores the accept thresholds.", "rejection sampling ignores accept thresholds.",
                         "remove the accept thresholds or rejection sampling")
    return None


def _draft_adjusted(fs: FlagSet, result: SpecResolution, topk: int) -> None:
    steps = cast(int, result.values[STEPS].value)
    if topk == 1 and result.values[DRAFT].value != steps + 1:
        result.values[DRAFT] = Effective(steps + 1, "auto")
        result.warnings.append((DRAFT, DRAFT_WARNING))


def _page_tree(fs: FlagSet, result: SpecResolution, topk: int) -> SpecError | None:
    allowed, backend, page = PAGE_TREE_BACKENDS[fs.version], attention_backend(fs), page_size(fs)
    if topk > 1 and page > 1 and backend not in allowed:
        message = PAGE_TREE_MESSAGES[fs.version].format(allowed=allowed, backend=backend)
        return SpecError(TOPK, message, f"top-k > 1 with page size {page} is not supported by the {backend} "
                         "backend.", f"use --page-size 1, {TOPK} 1, or --attention-backend {' / '.join(allowed)}")
    return None


def spec_ngram(fs: FlagSet, result: SpecResolution) -> None:
    """NGRAM: top-k from the BFS breadth, 12 draft tokens by default; steps derived from 0.5.23 on."""
    _max_running(fs, result)
    topk = fs.get("--speculative-ngram-max-bfs-breadth", 10)
    result.values[TOPK] = Effective(topk, "auto")
    draft = fs.get(DRAFT)
    if draft is None:
        draft = 12
        result.values[DRAFT] = Effective(12, "auto")
        result.warnings.append((DRAFT, NGRAM_WARNING))
    else:
        result.values[DRAFT] = Effective(draft)
    steps = fs.get(STEPS)
    if steps is not None:
        result.values[STEPS] = Effective(steps)
    elif fs.version == "0.5.23":
        result.values[STEPS] = Effective(draft // topk, "auto")
    else:
        result.values[STEPS] = Effective(None, "unset", "NGRAM does not use it")
    result.error = _ngram_checks(fs, topk)


def _ngram_checks(fs: FlagSet, topk: int) -> SpecError | None:
    page, backend = page_size(fs), attention_backend(fs)
    if fs.version in NEW_AUTO_TABLE and topk > 1 and page > 1 and backend != "flashinfer":
        return SpecError(TOPK, NGRAM_PAGE.format(topk=topk, page=page), f"NGRAM's top-k {topk} with page size "
                         f"{page} needs the flashinfer backend.", "use --page-size 1 or --attention-backend flashinfer")
    if fs.version in NEW_AUTO_TABLE and attention_dp(fs) > 1:
        return _dp_error("ngram")
    return None


def _eagle_before_0_5_12(fs: FlagSet, result: SpecResolution, model_arch: str | None) -> None:
    """Releases before 0.5.12.post1: the auto-choice and the assert; no TypeError, no backend checks modelled."""
    _max_running(fs, result)
    steps, topk, draft = fs.get(STEPS), fs.get(TOPK), fs.get(DRAFT)
    if steps is None and (topk is not None or draft is not None):
        result.error = SpecError(DRAFT if draft is not None else TOPK, "AssertionError")
        return
    if steps is None:
        auto = auto_spec_params(fs.version, result.algorithm or "", model_info(fs.model_path, model_arch).arch)
        result.values.update({f: Effective(v, "auto") for f, v in zip((STEPS, TOPK, DRAFT), auto)})
        return
    result.values[STEPS] = Effective(steps)
    if topk is None:
        if fs.version in TYPE_ERROR_VERSIONS:
            result.error = SpecError(TOPK, TYPE_ERROR)
        return
    result.values[TOPK] = Effective(topk)
    result.values[DRAFT] = Effective(draft) if draft is not None else Effective(None, "unset")
    _draft_adjusted(fs, result, topk)
