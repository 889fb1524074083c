"""Plain-text side-by-side rendering of a Diff (the headless `mtptui diff` output)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mtptui.engines.sglang.flags.diff import Diff

ARROW = " -> "


def cell_text(written: str | None, resolved: str) -> str:
    """What one side shows: the written value, what SGLang makes of it when different, or the resolved unset."""
    if written is None:
        return resolved
    return written if resolved == written else f"{written}{ARROW}{resolved}"


def shown_cell(written: str | None, resolved: str) -> str:
    """What a side shows in a dashboard: the resolved value, but what the user wrote first when SGLang runs it as
    something else (``NEXTN (runs as EAGLE)``: the written name is the one the operator knows)."""
    if written is None or resolved == written or resolved.startswith(f"{written} "):
        return resolved
    return f"{written} (runs as {resolved})"


def _table(header: list[str], body: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip() for row in [header, *body]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return lines


def render_diff(diff: "Diff") -> str:
    if diff.empty:
        return f"no differences between {' and '.join(diff.sides)}"
    lines: list[str] = []
    if diff.rows:
        body = [[row.flag, *(cell_text(w, r) for w, r in zip(row.values, row.resolved))] for row in diff.rows]
        lines += _table(["flag", *diff.sides], body)
    if diff.env:
        body = [[row.var, *(value if value is not None else "unset" for value in row.values)] for row in diff.env]
        lines += ([""] if lines else []) + _table(["env", *diff.sides], body)
    return "\n".join(lines)
