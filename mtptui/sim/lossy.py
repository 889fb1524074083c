"""A test-only switch that makes a speculative setting change greedy output, so a tuner's canary is seen to fire.

``MTPTUI_SIM_LOSSY_STEPS=4`` (a comma list; in the server's environment, e.g. a launch profile's ``env``) makes
every launch with ``--speculative-num-steps 4`` write a different word at output token ``LOSSY_AT`` of every
request: what different kernels or batch shapes can do to a real server's argmax
(``../shared/reference/speculative-performance.md``). Without it, greedy output is the same under every setting,
as SGLang's verification keeps the target's own argmax. Never set it on anything but a test's simulated server.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from mtptui.sim.textgen import Piece

LOSSY_ENV = "MTPTUI_SIM_LOSSY_STEPS"
LOSSY_AT = 12
_TEXT_KINDS = ("reasoning", "content")


def lossy_steps(env: dict[str, str]) -> set[int]:
    """The speculative step counts the switch names (words that are not numbers are ignored)."""
    return {int(word) for word in env.get(LOSSY_ENV, "").replace(" ", "").split(",") if word.isdigit()}


def flip(stream: Iterator[Piece], at: int = LOSSY_AT) -> Iterator[Piece]:
    """The stream with the first text piece from position ``at`` on replaced by another word."""
    for index, piece in enumerate(stream):
        if index >= at and piece.kind in _TEXT_KINDS:
            yield replace(piece, text=" a" if piece.text.strip() == "the" else " the")
            yield from stream
            return
        yield piece
