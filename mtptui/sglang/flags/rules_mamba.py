"""Hybrid (GDN / mamba) models: the cache strategy speculative decoding needs (the mission's crash).

0.5.12.post1 (``--mamba-scheduler-strategy``, ``auto`` = ``no_buffer``): speculative decoding with radix
cache and ``no_buffer`` raises at start. 0.5.23 (``--mamba-radix-cache-strategy``) picks ``extra_buffer``
itself when it can, so only an explicit ``no_buffer`` is reported. See models.py for how hybrids are detected.
"""

from __future__ import annotations

from typing import Iterator

from mtptui.sglang.flags.effective import DRAFT, resolve_spec
from mtptui.sglang.flags.finding import Finding
from mtptui.sglang.flags.flagset import FlagSet
from mtptui.sglang.flags.models import ModelInfo, model_info

OLD, NEW = "--mamba-scheduler-strategy", "--mamba-radix-cache-strategy"
NO_BUFFER_SPEC = ("ValueError: Speculative decoding for {arch} is not compatible with radix cache when using "
                  "--mamba-scheduler-strategy no_buffer.To use radix cache with speculative decoding, please use "
                  "--mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1.")
TRACK_INTERVAL = {
    "0.5.12.post1": "mamba_track_interval {interval} must be greater than or equal to speculative_num_draft_tokens "
                    "{draft}",
    "0.5.23": "AssertionError",
}


def _strategy_flag(fs: FlagSet) -> str | None:
    return OLD if OLD in fs.table else NEW if NEW in fs.table else None


def _which(info: ModelInfo) -> str:
    how = "guessed from the model path" if info.guessed else "given"
    return f"{info.arch} ({how})"


def hybrid_mamba(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    flag = _strategy_flag(fs)
    if flag is None:
        return
    info = model_info(fs.model_path, model_arch)
    strategy = fs.get(flag, "auto")
    spec = resolve_spec(fs, model_arch)
    if info.hybrid and spec.algorithm is not None and not fs.get("--disable-radix-cache"):
        yield from _needs_extra_buffer(fs, flag, strategy, info)
    if strategy in ("extra_buffer", "extra_buffer_lazy"):
        yield from _extra_buffer_checks(fs, flag, info, model_arch)


def _needs_extra_buffer(fs: FlagSet, flag: str, strategy: str, info: ModelInfo) -> Iterator[Finding]:
    fix = f"add {flag} extra_buffer"
    if flag == OLD and strategy in ("auto", "no_buffer"):
        yield Finding("error", flag, f"{_which(info)} is a hybrid GDN/mamba model: speculative decoding with radix "
                      f"cache needs {flag} extra_buffer, and {strategy} fails at start.",
                      fix + " (and keep SGLANG_ENABLE_SPEC_V2 on)", NO_BUFFER_SPEC.format(arch=info.arch))
    elif flag == NEW and strategy == "no_buffer":
        yield Finding("warning", flag, f"{_which(info)} is a hybrid GDN/mamba model: no_buffer cannot keep radix "
                      f"cache with speculative decoding.", fix)
    if flag == OLD and fs.env.get("SGLANG_ENABLE_SPEC_V2", "1").lower() in ("0", "false", "no", "off"):
        yield Finding("warning", "SGLANG_ENABLE_SPEC_V2", "spec v1 is used with SGLANG_ENABLE_SPEC_V2 off, but a "
                      "hybrid model with radix cache needs spec v2.", "set SGLANG_ENABLE_SPEC_V2=1")


def _extra_buffer_checks(fs: FlagSet, flag: str, info: ModelInfo, model_arch: str | None) -> Iterator[Finding]:
    if fs.get("--disable-radix-cache"):
        yield Finding("error", flag, "extra_buffer keeps mamba states for the radix cache, which is disabled.",
                      f"remove --disable-radix-cache or {flag}", "mamba extra_buffer is not compatible with "
                      "--disable-radix-cache")
    if model_arch and not info.hybrid and flag == OLD:
        yield Finding("error", flag, f"{model_arch} has no mamba layers, so extra_buffer is not supported.",
                      f"remove {flag}", f"mamba extra_buffer is not supported for {model_arch} model")
    draft = resolve_spec(fs, model_arch).values.get(DRAFT)
    interval = fs.get("--mamba-track-interval", 256)
    if draft is not None and isinstance(draft.value, int) and interval < draft.value and fs.version in TRACK_INTERVAL:
        yield Finding("error", "--mamba-track-interval", f"--mamba-track-interval {interval} is smaller than the "
                      f"{draft.value} draft tokens.", f"set --mamba-track-interval {draft.value} or more",
                      TRACK_INTERVAL[fs.version].format(interval=interval, draft=draft.value))
