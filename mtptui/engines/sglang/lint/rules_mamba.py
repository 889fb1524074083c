"""Hybrid (GDN / mamba) models: the mamba radix-cache strategy, checked where SGLang checks it.

Both releases check it while adjusting for the model (before DP and speculative handling), with the user's
own values. 0.5.12.post1 (``--mamba-scheduler-strategy``, ``auto`` = ``no_buffer``): spec decoding with radix
cache and no_buffer raises (the mission's crash); extra_buffer checks radix cache, track interval and page
size; a model without mamba layers ignores the option. 0.5.23 (``--mamba-radix-cache-strategy``): ``auto``
picks extra_buffer when overlap or paging wants it, else no_buffer with overlap off; no_buffer needs overlap
off and page size 1; an extra buffer on a model without mamba state (or with radix cache off) is refused.
See models.py for how hybrids are detected.
"""

from __future__ import annotations

from typing import Iterator

from mtptui.engines.sglang.flags.effective import ALGO, DRAFT
from mtptui.engines.sglang.lint.finding import Finding
from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.flags.models import ModelInfo, model_info

OLD, NEW = "--mamba-scheduler-strategy", "--mamba-radix-cache-strategy"
INTERVAL, PAGE, RADIX, OVERLAP = "--mamba-track-interval", "--page-size", "--disable-radix-cache", \
    "--disable-overlap-schedule"
FLA_CHUNK_SIZE = 64
NO_BUFFER_SPEC = ("ValueError: Speculative decoding for {arch} is not compatible with radix cache when using "
                  "--mamba-scheduler-strategy no_buffer.To use radix cache with speculative decoding, please use "
                  "--mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1.")
NO_RADIX_OLD = ("ValueError: mamba extra_buffer is not compatible with --disable-radix-cache Overlap scheduling is "
                "already supported with no_buffer + disable_radix_cache. Please use --mamba-scheduler-strategy "
                "no_buffer instead.")
EXTRA = ("extra_buffer", "extra_buffer_lazy")


def _which(info: ModelInfo) -> str:
    how = "guessed from the model path" if info.guessed else "given"
    return f"{info.arch} ({how})"


def hybrid_mamba(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    info = model_info(fs.model_path, model_arch)
    if OLD in fs.table:
        yield from _old(fs, info)
    elif NEW in fs.table:
        yield from _new(fs, info)


def _old(fs: FlagSet, info: ModelInfo) -> Iterator[Finding]:
    strategy = fs.get(OLD, "auto")
    if not info.hybrid:
        if strategy == "extra_buffer" and info.arch:
            yield Finding("info", OLD, f"{info.arch} has no mamba layers, so SGLang {fs.version} ignores {OLD}.",
                          f"remove {OLD}")
        return
    if strategy == "extra_buffer":
        yield from _old_extra_buffer(fs)
    elif not fs.get(RADIX):
        yield from _old_no_buffer(fs, info, strategy)
    if fs.get(ALGO) is not None and fs.env.get("SGLANG_ENABLE_SPEC_V2", "1").lower() in ("0", "false", "no", "off"):
        yield Finding("warning", "SGLANG_ENABLE_SPEC_V2", "spec v1 is used with SGLANG_ENABLE_SPEC_V2 off, but a "
                      "hybrid model with radix cache needs spec v2.", "set SGLANG_ENABLE_SPEC_V2=1")


def _old_no_buffer(fs: FlagSet, info: ModelInfo, strategy: str) -> Iterator[Finding]:
    page = fs.get(PAGE)
    if page is not None and page != 1:
        yield Finding("warning", PAGE, f"SGLang sets page size 1 for {info.arch} with radix cache and no_buffer "
                      f"(the {page} given is replaced).", f"remove {PAGE} or use {OLD} extra_buffer")
    if fs.get(ALGO) is not None:
        yield Finding("error", OLD, f"{_which(info)} is a hybrid GDN/mamba model: speculative decoding with radix "
                      f"cache needs {OLD} extra_buffer, and {strategy} fails at start.",
                      f"add {OLD} extra_buffer (and keep SGLANG_ENABLE_SPEC_V2 on)",
                      NO_BUFFER_SPEC.format(arch=info.arch))


def _old_extra_buffer(fs: FlagSet) -> Iterator[Finding]:
    if fs.get(RADIX):
        yield Finding("error", OLD, "extra_buffer keeps mamba states for the radix cache, which is disabled.",
                      f"remove {RADIX} or use {OLD} no_buffer", NO_RADIX_OLD)
        return
    interval, draft, page = fs.get(INTERVAL, 256), fs.get(DRAFT), fs.get(PAGE)
    if draft is not None and interval < draft:
        yield _interval_draft(interval, draft, f"AssertionError: mamba_track_interval {interval} must be greater "
                              f"than or equal to speculative_num_draft_tokens {draft}")
    elif page is not None and interval % page:
        yield _interval_page(interval, page, f"AssertionError: mamba_track_interval {interval} must be divisible "
                             f"by page_size {page}")
    elif page is not None and max(FLA_CHUNK_SIZE, page) % min(FLA_CHUNK_SIZE, page):
        yield Finding("error", PAGE, f"with extra_buffer, page size {page} and the FLA chunk size {FLA_CHUNK_SIZE} "
                      "must divide one another.", f"use a power of two for {PAGE}",
                      "AssertionError: For SSM models with extra buffer, either FLA_CHUNK_SIZE or page_size must be "
                      f"divisible by the other, got FLA_CHUNK_SIZE={FLA_CHUNK_SIZE}, self.page_size={page}")


def _interval_draft(interval: int, draft: int, message: str) -> Finding:
    return Finding("error", INTERVAL, f"{INTERVAL} {interval} is smaller than the {draft} draft tokens.",
                   f"set {INTERVAL} {draft} or more", message)


def _interval_page(interval: int, page: int, message: str) -> Finding:
    return Finding("error", PAGE, f"{INTERVAL} {interval} is not a multiple of page size {page}.",
                   f"use a page size that divides {interval}", message)


def _new(fs: FlagSet, info: ModelInfo) -> Iterator[Finding]:
    strategy = fs.get(NEW, "auto")
    if not info.hybrid or fs.get(RADIX):
        if strategy in EXTRA and not fs.get(RADIX) and info.arch:
            yield Finding("error", NEW, f"{info.arch} has no mamba state for {strategy}.", f"remove {NEW}",
                          f"ValueError: {NEW} {strategy} needs mamba state, got {info.arch}.")
        return
    if strategy == "auto":
        strategy = "extra_buffer" if not fs.get(OVERLAP) or (fs.get(PAGE) or 1) > 1 else "no_buffer"
    yield from (_new_extra_buffer(fs) if strategy in EXTRA else _new_no_buffer(fs))


def _new_extra_buffer(fs: FlagSet) -> Iterator[Finding]:
    interval, draft, page = fs.get(INTERVAL, 256), fs.get(DRAFT), fs.get(PAGE)
    if draft is not None and interval < draft:
        yield _interval_draft(interval, draft, "AssertionError")
    elif page is not None and interval % page:
        yield _interval_page(interval, page, "AssertionError")


def _new_no_buffer(fs: FlagSet) -> Iterator[Finding]:
    if fs.get(PAGE) not in (None, 1):
        yield Finding("error", PAGE, "the mamba no_buffer strategy only supports page size 1.",
                      f"remove {PAGE} or use {NEW} extra_buffer",
                      "AssertionError: no_buffer only supports page_size=1.")
    elif not fs.get(OVERLAP):
        yield Finding("error", NEW, "the mamba no_buffer strategy cannot run with the overlap scheduler.",
                      f"add {OVERLAP}, or use {NEW} extra_buffer", "AssertionError: no_buffer do not support overlap "
                      "schedule. Try to set disable_overlap_schedule=True.")
    elif fs.get("--attention-backend") == "trtllm_mha":
        yield Finding("error", NEW, "the mamba no_buffer strategy does not support the trtllm_mha backend.",
                      f"use {NEW} extra_buffer or another --attention-backend",
                      "AssertionError: no_buffer do not support trtllm_mha attention backend.")
