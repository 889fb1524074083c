"""The streamed chat request the benchmark sends, and its pinned sampling parameters."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from mtptui.bench.prompts import Prompt

CHAT_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters, always sent explicitly: acceptance length depends strongly on temperature."""

    temperature: float = 0.0
    top_p: float | None = None
    top_k: int | None = None
    ignore_eos: bool = False
    enable_thinking: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def request_fields(self) -> dict[str, Any]:
        """The request body fields; thinking goes through `chat_template_kwargs` (Qwen's switch)."""
        fields = {k: v for k, v in asdict(self).items() if v is not None and k != "enable_thinking"}
        if self.enable_thinking is not None:
            fields["chat_template_kwargs"] = {"enable_thinking": self.enable_thinking}
        return fields


def build_payload(prompt: Prompt, *, model: str, max_tokens: int, sampling: Sampling) -> dict[str, Any]:
    """The streamed chat request: continuous usage and per-request speculative details asked for."""
    return {
        "model": model,
        "messages": prompt.messages(),
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True, "continuous_usage_stats": True},
        "return_spec_tokens_details": True,
        **sampling.request_fields(),
    }
