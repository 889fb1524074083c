"""What SGLang will actually use for the speculative and memory flags, and whether it chose it itself.

The speculative handlers themselves are in speculative.py (checked against SGLang's code by the differential
test); memory defaults follow sglang-flags.md §3. Values SGLang derives from the GPU or the checkpoint are
reported as auto without a number, since they cannot be known offline.
"""

from __future__ import annotations

from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.flags.models import model_info
from mtptui.engines.sglang.flags.spec_values import (  # re-exported: the names callers import from here
    ALGO, DRAFT, DRAFT_WARNING, EAGLE_FAMILY, MRR, MRR_SPEC, MRR_WARNING, NEW_AUTO_TABLE, NGRAM_WARNING, STEPS, TOPK,
    TYPE_ERROR, TYPE_ERROR_VERSIONS, Effective, SpecError, SpecResolution, auto_spec_params, show_value,
)
from mtptui.engines.sglang.flags import spec_adaptive
from mtptui.engines.sglang.flags.spec_others import spec_dspark, spec_uno
from mtptui.engines.sglang.flags.speculative import spec_dflash, spec_eagle, spec_ngram

__all__ = [
    "ALGO", "DRAFT", "DRAFT_WARNING", "EAGLE_FAMILY", "MRR", "MRR_SPEC", "MRR_WARNING", "NEW_AUTO_TABLE",
    "NGRAM_WARNING", "STEPS", "TOPK", "TYPE_ERROR", "TYPE_ERROR_VERSIONS", "Effective", "SpecError", "SpecResolution",
    "auto_spec_params", "resolve_effective", "resolve_spec", "show_value",
]


OTHERS = {"DSPARK": spec_dspark, "UNO": spec_uno}  # 0.5.23's (earlier releases do not know the names)


def resolve_spec(fs: FlagSet, model_arch: str | None = None) -> SpecResolution:
    """``handle_speculative_decoding`` of ``fs.version``: resolved values, warnings, the first exception."""
    written = fs.get(ALGO)
    if written is None:
        return SpecResolution()
    name = str(written).upper()
    algorithm = "EAGLE" if name == "NEXTN" else name
    result = SpecResolution(algorithm=algorithm)
    result.values[ALGO] = Effective(algorithm)
    if name not in {b.upper() for b in fs.table.spec_builtins}:
        result.error = SpecError(ALGO, f"ValueError: Unknown speculative algorithm name: {name}")
        return result
    adaptive = spec_adaptive.before_handler(fs, result)
    if result.error is not None:
        return result
    if algorithm == "DFLASH" and fs.version in NEW_AUTO_TABLE:
        spec_dflash(fs, result)
    elif algorithm in EAGLE_FAMILY:
        spec_eagle(fs, result, model_arch, adaptive)
    elif algorithm == "NGRAM":
        spec_ngram(fs, result)
    elif algorithm in OTHERS:
        OTHERS[algorithm](fs, result)
    spec_adaptive.after_handler(fs, result)
    return result


def _memory(fs: FlagSet) -> dict[str, Effective]:
    """Memory-related flags: as written, or what SGLang falls back to."""
    unset_notes = {
        "--mem-fraction-static": ("auto", "from GPU memory"),
        "--context-length": ("auto", "from the model's config.json"),
        "--chunked-prefill-size": ("auto", "from GPU memory"),
        "--max-running-requests": ("auto", "from the KV cache size"),
        "--cuda-graph-max-bs": ("auto", "from GPU memory"),
        "--cuda-graph-max-bs-decode": ("auto", "from GPU memory"),
        "--max-total-tokens": ("auto", "from the KV cache size"),
    }
    out: dict[str, Effective] = {}
    for name, (source, note) in unset_notes.items():
        if name in fs.table:
            value = fs.get(name)
            out[name] = Effective(value) if value is not None else Effective(None, source, note)
    return out


def _mamba(fs: FlagSet, model_arch: str | None) -> dict[str, Effective]:
    out: dict[str, Effective] = {}
    if "--mamba-full-memory-ratio" in fs.table:
        ratio = fs.get("--mamba-full-memory-ratio")
        out["--mamba-full-memory-ratio"] = Effective(ratio) if ratio is not None else Effective(0.9, "default")
    for name in ("--mamba-scheduler-strategy", "--mamba-radix-cache-strategy"):
        if name in fs.table:
            value = fs.get(name, "auto")
            out[name] = Effective(value) if value != "auto" else _mamba_auto(fs, name, model_arch)
    return out


def _mamba_auto(fs: FlagSet, name: str, model_arch: str | None) -> Effective:
    """``auto``: no_buffer up to 0.5.12.post1; 0.5.23 picks extra_buffer for a hybrid when overlap or paging
    wants it (no_buffer, with overlap off, otherwise)."""
    if name == "--mamba-scheduler-strategy":
        return Effective("no_buffer", "auto")
    if not model_info(fs.model_path, model_arch).hybrid or fs.get("--disable-radix-cache"):
        return Effective(None, "auto", "unused: no mamba radix cache")
    paging = (fs.get("--page-size") or 1) > 1
    return Effective("extra_buffer" if paging or not fs.get("--disable-overlap-schedule") else "no_buffer", "auto")


def resolve_effective(fs: FlagSet, model_arch: str | None = None) -> dict[str, Effective]:
    """Speculative and memory flags as SGLang will use them, keyed by canonical name; ``str(v)`` e.g. "2 (auto)"."""
    out = _memory(fs)
    out.update(_mamba(fs, model_arch))
    spec = resolve_spec(fs, model_arch)
    out.update(spec_adaptive.without_algorithm(fs) if spec.algorithm is None else {})
    if spec.algorithm is not None:
        out.update(spec.values)
        if spec.error is not None:
            out[spec.error.flag] = Effective(fs.get(spec.error.flag), "error", spec.error.message)
    return out
