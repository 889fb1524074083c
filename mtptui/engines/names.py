"""The names of the engines mtptui knows (one home: the registry, the host file's `engine` and the CLI use it)."""

from __future__ import annotations

NAMES = ("sglang", "vllm")
DEFAULT = "sglang"
