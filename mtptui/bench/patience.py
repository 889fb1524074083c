"""How long one benchmark request may take: silent, and in all. One home for the defaults of the CLI, the bench
screen and tune (no imports: the CLI reads these when it builds its help)."""

from __future__ import annotations

DEADLINE_BASE_S = 120.0
DEADLINE_PER_TOKEN_S = 0.25
SILENCE_S = 300.0  # a request may go this long without data (a long prefill behind a queue) before it fails


def default_deadline(max_tokens: int) -> float:
    """Seconds one request may take in all: two minutes for queueing and prefill, then at least 4 tokens/s."""
    return DEADLINE_BASE_S + DEADLINE_PER_TOKEN_S * max_tokens
