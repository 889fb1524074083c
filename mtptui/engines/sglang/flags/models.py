"""What the flag rules need to know about a model: its architecture class and whether it is a hybrid.

SGLang reads the architecture from the checkpoint's config.json (``architectures[0]``). Offline we only have
the model path, so the architecture may be given explicitly (``model_arch``) or guessed from the path's last
component with the patterns below. A guess is marked as such, so rules can soften what they say.

Hybrid models interleave full attention with GDN / mamba (linear-attention) layers; SGLang keeps mamba
state for them and needs a mamba cache strategy (``extra_buffer``) to combine radix cache and speculative
decoding. Detection is explicit:

* by architecture: any name in ``HYBRID_ARCHS`` (or starting with one of them);
* by path: Qwen3.5 / Qwen3.6 / Qwen3-Next, Nemotron-H, Falcon-H1, Jamba, Mamba (case-insensitive, with
  ``-``, ``_``, ``.`` or nothing between the parts, e.g. ``Qwen3.6-27B``, ``qwen3_5-9b``, ``Qwen3-Next-80B-A3B``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

HYBRID_ARCHS = (
    "Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM", "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration", "Qwen3NextForCausalLM", "NemotronHForCausalLM",
    "FalconH1ForCausalLM", "JambaForCausalLM", "MambaForCausalLM", "Mamba2ForCausalLM",
)

_SEP = r"[-_.]?"
# (pattern on the lower-cased last path component, architecture SGLang would report)
PATH_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"qwen3{_SEP}(5|6)(?![0-9])"), "Qwen3_5ForCausalLM"),
    (re.compile(rf"qwen3{_SEP}next"), "Qwen3NextForCausalLM"),
    (re.compile(rf"nemotron{_SEP}h(?![a-z])"), "NemotronHForCausalLM"),
    (re.compile(rf"falcon{_SEP}h1"), "FalconH1ForCausalLM"),
    (re.compile(r"jamba"), "JambaForCausalLM"),
    (re.compile(r"mamba"), "MambaForCausalLM"),
    (re.compile(r"qwen3"), "Qwen3ForCausalLM"),
    (re.compile(r"qwen2"), "Qwen2ForCausalLM"),
    (re.compile(rf"deepseek{_SEP}v3"), "DeepseekV3ForCausalLM"),
    (re.compile(rf"deepseek{_SEP}v2"), "DeepseekV2ForCausalLM"),
    (re.compile(rf"gpt{_SEP}oss"), "GptOssForCausalLM"),
    (re.compile(r"llama"), "LlamaForCausalLM"),
)


@dataclass(frozen=True)
class ModelInfo:
    """The architecture used by the rules, and whether it was given or guessed from the path."""

    arch: str | None
    guessed: bool

    @property
    def hybrid(self) -> bool:
        return self.arch is not None and self.arch.startswith(HYBRID_ARCHS)


def guess_arch(model_path: str | None) -> str | None:
    """The architecture a model path most likely has (first matching pattern), or None."""
    if not model_path:
        return None
    name = PurePosixPath(model_path.rstrip("/")).name.lower() or model_path.lower()
    for pattern, arch in PATH_PATTERNS:
        if pattern.search(name):
            return arch
    return None


def model_info(model_path: str | None, model_arch: str | None = None) -> ModelInfo:
    if model_arch:
        return ModelInfo(model_arch, guessed=False)
    return ModelInfo(guess_arch(model_path), guessed=True)
