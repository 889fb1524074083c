"""A lint result, for any engine: severity, flag, one sentence, a fix, and what the engine itself says.

Each engine's lint says its findings through a subclass naming the engine (``engine_label``); the JSON names the
engine's words after it (``sglang_message``, ``vllm_message``: a stable contract), while code reads
``engine_message`` whichever engine spoke.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One lint result: severity ("error" | "warning" | "info"), the flag, one sentence, a fix, the engine's text
    (None for mtptui's own words)."""

    severity: str
    flag: str | None
    message: str
    fix: str | None = None
    engine_message: str | None = None

    engine_label: ClassVar[str] = ""  # who said engine_message: "SGLang", "vLLM" (empty: mtptui alone)

    @property
    def stops_server(self) -> bool:
        """True when the engine itself fails on this (an error carrying the engine's message)."""
        return self.severity == "error" and self.engine_message is not None

    def to_dict(self) -> dict[str, object]:
        key = f"{self.engine_label.lower()}_message" if self.engine_label else "engine_message"
        return {"severity": self.severity, "flag": self.flag, "message": self.message, "fix": self.fix,
                key: self.engine_message}

    @property
    def said(self) -> str:
        """The message named by its flag, once: ``--x: text``, but a message that begins with its flag as is."""
        if not self.flag or self.message.startswith(self.flag):
            return self.message
        return f"{self.flag}: {self.message}"

    def __str__(self) -> str:
        text = f"{self.severity}: {self.said}"
        if self.fix:
            text += f" Fix: {self.fix}."
        if self.engine_message and self.severity != "info" and self.engine_message != self.message:
            text += f" ({self.engine_label or 'engine'}: {self.engine_message})"
        return text
