"""SGLang's DP-attention split (``_handle_data_parallelism``) and ``check_server_args``, per release.

The DP check runs before speculative handling; ``check_server_args`` after all resolution, in this order:
served model name, prefill chunk against page size (both read after SGLang resolved them), PD-multiplexing,
then two-batch overlap (what moe_a2a_backend 'none' allows differs by release).
"""

from __future__ import annotations

from typing import Iterator

from mtptui.engines.sglang.lint.finding import Finding
from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.flags.models import model_info
from mtptui.engines.sglang.flags.parallel import attention_dp, chunked_prefill, page_size
from mtptui.engines.sglang.lint.rules_mamba import OLD

SERVED = "--served-model-name"


def data_parallel(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    """DP attention splits the TP group: tp_size % width (a bare assert in both releases)."""
    width, tp = attention_dp(fs), int(fs.get("--tp-size", 1) or 1)
    if width > 1 and tp % width:
        yield Finding("error", "--tp-size", f"DP attention over {width} groups needs a TP size divisible by {width} "
                      f"(TP {tp}).", f"use --tp-size {width * max(1, tp // width)} or a DP width dividing {tp}",
                      "AssertionError")


def server_checks(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    name = fs.get(SERVED) if fs.get(SERVED) is not None else fs.model_path
    if isinstance(name, str) and ":" in name:
        yield Finding("error", SERVED, "the served model name may not contain a colon (it separates a LoRA "
                      "adapter).", "choose a name without ':'" if fs.get(SERVED) else f"add {SERVED} NAME",
                      "AssertionError: served_model_name cannot contain a colon (':') character. The colon is "
                      "reserved for the 'model:adapter' syntax used in LoRA adapter specification. "
                      f"Invalid value: '{name}'")
    chunk, page = chunked_prefill(fs), _page(fs, model_arch)
    if chunk > 0 and chunk % page:
        given = fs.get("--chunked-prefill-size") is not None
        what = f"{chunk}" if given else f"{chunk}, SGLang's default"
        yield Finding("error", "--chunked-prefill-size", f"the prefill chunk ({what}) is not a multiple of page size "
                      f"{page}.", f"use a multiple of {page} for "
                      "--chunked-prefill-size", "AssertionError: chunked_prefill_size must be divisible by page_size")
    yield from _overlap_checks(fs, chunk)


TBO = {"0.5.12.post1": "ValueError: When enabling two batch overlap, moe_a2a_backend cannot be 'none'.",
       "0.5.23": "ValueError: When enabling two batch overlap without an EP a2a backend (moe_a2a_backend='none'), "
                 "attention DP (--attn-dp-size) is required (DeepSeek-V4 non-EP DP TBO path)."}


def _overlap_checks(fs: FlagSet, chunk: int) -> Iterator[Finding]:
    """PD-multiplexing (no pipeline parallelism, no chunked prefill) and two-batch overlap (needs an EP all-to-all
    backend; 0.5.23 also takes DP attention instead)."""
    if fs.get("--enable-pdmux"):
        if int(fs.get("--pp-size", 1) or 1) != 1:
            yield Finding("error", "--pp-size", "PD-multiplexing runs without pipeline parallelism.",
                          "set --pp-size 1", "AssertionError: PD-Multiplexing is only supported with pipeline "
                          "parallelism disabled (pp_size=1).")
        elif chunk != -1:
            yield Finding("error", "--enable-pdmux", "PD-multiplexing needs chunked prefill off.",
                          "add --chunked-prefill-size -1", "AssertionError: PD-Multiplexing is not compatible with "
                          "chunked prefill.")
    if fs.get("--enable-two-batch-overlap") and str(fs.get("--moe-a2a-backend") or "none") == "none" and \
            fs.version in TBO and not (fs.version == "0.5.23" and attention_dp(fs) > 1):
        yield Finding("error", "--enable-two-batch-overlap", "two-batch overlap needs an EP all-to-all backend"
                      + (" or DP attention." if fs.version == "0.5.23" else "."), "set --moe-a2a-backend (e.g. "
                      "deepep) or remove --enable-two-batch-overlap", TBO[fs.version])


def _page(fs: FlagSet, model_arch: str | None) -> int:
    """0.5.12.post1 sets page size 1 for a hybrid on no_buffer with radix cache."""
    if OLD in fs.table and fs.get(OLD, "auto") != "extra_buffer" and not fs.get("--disable-radix-cache") \
            and model_info(fs.model_path, model_arch).hybrid:
        return 1
    return page_size(fs)
