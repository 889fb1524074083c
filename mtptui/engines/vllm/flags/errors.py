"""A refusal of vLLM's: the exception it would stop with, in the shape of the runner's verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class VllmRefusal(Exception):
    """vLLM would stop here: ``error_class`` and ``message`` as it prints them, at ``stage``.

    A pydantic ValidationError carries ``errors`` (loc, type, msg of each entry) and its first line as message.
    """

    def __init__(self, error_class: str, message: str, stage: str, errors: list[dict[str, Any]] | None = None,
                 flag: str | None = None) -> None:
        super().__init__(message)
        self.error_class, self.message, self.stage, self.errors, self.flag = error_class, message, stage, errors, flag


def validation_error(config: str, entries: list[dict[str, Any]], stage: str = "engine_config",
                     flag: str | None = None) -> VllmRefusal:
    """pydantic's ValidationError for a vLLM config class (`1 validation error for CacheConfig`)."""
    count = len(entries)
    title = f"{count} validation error{'s' if count != 1 else ''} for {config}"
    return VllmRefusal("ValidationError", title, stage, entries, flag)


@dataclass
class Verdict:
    """What vLLM does with a command line: the runner's JSON shape (vllm_runner.py), from lint."""

    accepted: bool
    stage: str | None = None
    error_class: str | None = None
    message: str | None = None
    errors: list[dict[str, Any]] | None = None
    resolved: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    flag: str | None = None
