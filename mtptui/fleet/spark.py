"""Sparklines as text: one block character per value, a gap where there is no value."""

from __future__ import annotations

from typing import Sequence

BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float | None], top: float | None = None) -> str:
    """``values`` scaled to eight levels of 0..``top`` (their maximum by default); None is a space."""
    present = [v for v in values if v is not None]
    top = max(present, default=0.0) if top is None else top
    if top <= 0:
        return "".join(" " if v is None else BLOCKS[0] for v in values)
    return "".join(" " if v is None else BLOCKS[min(7, max(0, int(v / top * 7 + 0.5)))] for v in values)
