"""SGLang's lint results: the engine-neutral Finding (mtptui/engines/finding.py), SGLang's words as its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mtptui.engines.finding import SEVERITIES
from mtptui.engines.finding import Finding as _Finding

__all__ = ["SEVERITIES", "Finding"]


@dataclass(frozen=True)
class Finding(_Finding):
    """A finding SGLang's lint says; ``engine_message`` is SGLang's text (``sglang_message`` in the JSON)."""

    engine_label: ClassVar[str] = "SGLang"
