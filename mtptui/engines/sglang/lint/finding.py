"""A lint result: severity, flag, one sentence, a fix, and what SGLang itself says."""

from __future__ import annotations

from dataclasses import asdict, dataclass

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One lint result: severity ("error" | "warning" | "info"), the flag, one sentence, a fix, SGLang's text."""

    severity: str
    flag: str | None
    message: str
    fix: str | None = None
    sglang_message: str | None = None

    @property
    def stops_server(self) -> bool:
        """True when SGLang itself fails on this (an error carrying SGLang's message)."""
        return self.severity == "error" and self.sglang_message is not None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

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
        if self.sglang_message and self.severity != "info":
            text += f" (SGLang: {self.sglang_message})"
        return text
