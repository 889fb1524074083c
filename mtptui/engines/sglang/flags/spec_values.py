"""The vocabulary of resolved flags: an Effective value, SGLang's speculative defaults, warnings and errors.

Shared by effective.py (what SGLang will use) and speculative.py (its speculative handlers), so neither
imports the other's constants.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mtptui.engines.sglang.adaptive import AdaptiveStart

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
    adaptive: AdaptiveStart | None = None  # --speculative-adaptive on, where its candidates are known


def auto_spec_params(version: str, algorithm: str, arch: str | None) -> tuple[int, int, int]:
    """``_auto_choose_speculative_params``: (num_steps, topk, num_draft_tokens) for an architecture."""
    arch = arch or ""
    if version in NEW_AUTO_TABLE:
        if algorithm == "STANDALONE" or arch.startswith(_SMALL_ARCHS):
            return 3, 1, 4
        return (5, 4, 8) if arch.startswith(_LARGE_ARCHS) else (3, 1, 4)
    return (3, 1, 4) if arch.startswith(("DeepseekV3", "DeepseekV2", "GptOss")) else (5, 4, 8)
