"""Small text formats the panes share: bars, durations, sizes, numbers."""

from __future__ import annotations

from mtptui.text import visible

EIGHTHS = " ▏▎▍▌▋▊▉█"
NONE = "—"


def bar(fraction: float | None, width: int) -> str:
    """A horizontal bar ``width`` cells wide, filled to ``fraction`` (0..1) in eighths of a cell."""
    fraction = min(max(fraction or 0.0, 0.0), 1.0)
    eighths = round(fraction * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (EIGHTHS[part] if part and full < width else "")
    return text.ljust(width)


def duration(seconds: float | None) -> str:
    """``45 s``, ``3m 05s``, ``2h 07m``, ``3d 04h``."""
    if seconds is None:
        return NONE
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h {minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d {hours:02d}h"


def gb(value: float | None) -> str:
    return NONE if value is None else f"{value:.2f}"


def number(value: float | int | None, digits: int = 0) -> str:
    """Thousands separators; ``digits`` decimals for floats."""
    if value is None:
        return NONE
    return f"{value:,.{digits}f}" if isinstance(value, float) or digits else f"{value:,}"


def offline_text(reason: str, host: str, width: int) -> str:
    """``not connected: REASON · mtptui check HOST``; where that is too long, the hint before the reason (which
    the line cuts), so the command to run is never the part cut off."""
    full = visible(f"not connected: {reason} · mtptui check {host}")
    return full if len(full) <= width else visible(f"not connected (mtptui check {host}): {reason}")
