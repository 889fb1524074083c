"""SGLang's timestamps (``ts`` of an event) as seconds: one rule for every reader of the log."""

from __future__ import annotations

from datetime import datetime

DATE_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S,%f", "%Y-%m-%dT%H:%M:%S",
                "%Y-%m-%dT%H:%M:%S.%f")
TIME_FORMATS = ("%H:%M:%S", "%H:%M:%S.%f")


def parse_ts(text: str | None) -> float | None:
    """Seconds (epoch, local time) of a timestamp as SGLang prints it; time-only stamps count from midnight."""
    if not text:
        return None
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).timestamp()
        except ValueError:
            pass
    for fmt in TIME_FORMATS:
        try:
            return (datetime.strptime(text, fmt) - datetime(1900, 1, 1)).total_seconds()
        except ValueError:
            pass
    return None
