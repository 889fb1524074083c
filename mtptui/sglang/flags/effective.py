"""What SGLang will actually use for the speculative and memory flags, and whether it chose it itself.

The speculative handlers themselves are in speculative.py (checked against SGLang's code by the differential
test); memory defaults follow sglang-flags.md §3. Values SGLang derives from the GPU or the checkpoint are
reported as auto without a number, since they cannot be known offline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mtptui.sglang.flags.flagset import FlagSet
from mtptui.sglang.flags.models import model_info

EAGLE_FAMILY = frozenset({"EAGLE", "EAGLE3", "STANDALONE"})
NEW_AUTO_TABLE = frozenset({"0.5.12.post1", "0.5.23"})
TYPE_ERROR_VERSIONS = NEW_AUTO_TABLE
MRR_SPEC = 48
STEPS, TOPK, DRAFT = "--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens"
ALGO, MRR = "--speculative-algorithm", "--max-running-requests"
MRR_WARNING = ("Max running requests is reset to 48 for speculative decoding. You can override this by "
               "explicitly setting --max-running-requests.")
DRAFT_WARNING = ("speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when "
                 "speculative_eagle_topk == 1")
NGRAM_WARNING = ("speculative_num_draft_tokens is set to 12 by default for ngram speculative decoding. You can "
                 "override this by explicitly setting --speculative-num-draft-tokens.")
TYPE_ERROR = "TypeError: '>' not supported between instances of 'NoneType' and 'int'"

_SMALL_ARCHS = ("DeepseekV32", "DeepseekV3", "DeepseekV2", "GptOss", "Glm4Moe", "GlmMoeDsa", "BailingMoe",
                "MistralLarge3", "Pixtral", "MiMoV2")
_LARGE_ARCHS = ("LlamaForCausalLM", "Grok1")


@dataclass(frozen=True)
class Effective:
    """One resolved value: ``source`` is set (as written), auto (SGLang chose), default, unset or error."""

    value: object = None
    source: str = "set"
    note: str | None = None

    @property
    def auto(self) -> bool:
        return self.source == "auto"

    def __str__(self) -> str:
        text = show_value(self.value)
        if self.source == "set":
            return text
        if self.source == "auto":
            return f"{text} (auto)" if self.value is not None else f"auto ({self.note})" if self.note else "auto"
        if self.source == "default":
            return f"unset (default {text})"
        if self.source == "error":
            return f"error ({self.note})"
        return f"unset ({self.note})" if self.note else "unset"


def show_value(value: object) -> str:
    """A value as the diff and the lint show it: true/false, lists space-joined, floats by repr."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(show_value(v) for v in value)
    return repr(value) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class SpecError:
    """The exception SGLang's speculative handler raises: the flag to change, its text, why, and the fix."""

    flag: str
    message: str
    why: str | None = None
    fix: str | None = None


@dataclass
class SpecResolution:
    """The speculative settings after SGLang's hooks, with the failure or warnings they produce."""

    algorithm: str | None = None
    values: dict[str, Effective] = field(default_factory=dict)
    error: SpecError | None = None
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (flag, SGLang warning text)


def auto_spec_params(version: str, algorithm: str, arch: str | None) -> tuple[int, int, int]:
    """``_auto_choose_speculative_params``: (num_steps, topk, num_draft_tokens) for an architecture."""
    arch = arch or ""
    if version in NEW_AUTO_TABLE:
        if algorithm == "STANDALONE" or arch.startswith(_SMALL_ARCHS):
            return 3, 1, 4
        return (5, 4, 8) if arch.startswith(_LARGE_ARCHS) else (3, 1, 4)
    return (3, 1, 4) if arch.startswith(("DeepseekV3", "DeepseekV2", "GptOss")) else (5, 4, 8)


def resolve_spec(fs: FlagSet, model_arch: str | None = None) -> SpecResolution:
    """``handle_speculative_decoding`` of ``fs.version``: resolved values, warnings, the first exception."""
    from mtptui.sglang.flags.speculative import spec_dflash, spec_eagle, spec_ngram

    written = fs.get(ALGO)
    if written is None:
        return SpecResolution()
    name = str(written).upper()
    algorithm = "EAGLE" if name == "NEXTN" else name
    result = SpecResolution(algorithm=algorithm)
    result.values[ALGO] = Effective(algorithm)
    if name not in {b.upper() for b in fs.table.spec_builtins}:
        result.error = SpecError(ALGO, f"ValueError: Unknown speculative algorithm name: {name}")
    elif algorithm == "DFLASH" and fs.version in NEW_AUTO_TABLE:
        spec_dflash(fs, result)
    elif algorithm in EAGLE_FAMILY:
        spec_eagle(fs, result, model_arch)
    elif algorithm == "NGRAM":
        spec_ngram(fs, result)
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
    if spec.algorithm is not None:
        out.update(spec.values)
        if spec.error is not None:
            out[spec.error.flag] = Effective(fs.get(spec.error.flag), "error", spec.error.message)
    return out
