"""SGLang's timestamps (``ts`` of an event) as seconds: one rule for every reader of the log."""

from __future__ import annotations

from datetime import datetime

DATE_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S,%f", "%Y-%m-%dT%H:%M:%S",
                "%Y-%m-%dT%H:%M:%S.%f")
TIME_FORMATS = ("%H:%M:%S", "%H:%M:%S.%f")
YEARLESS = 2000


def parse_ts(text: str | None) -> float | None:
    """Seconds (epoch, local time) of a timestamp as SGLang (or vLLM) prints it; time-only stamps count from
    midnight."""
    if not text:
        return None
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).timestamp()
        except ValueError:
            pass
    if len(text) == 14 and text[2] == "-":  # vLLM's `MM-DD HH:MM:SS`: no year (only differences are read), a
        try:                                # leap one so that 02-29 is a day
            return datetime.strptime(f"{YEARLESS}-{text}", "%Y-%m-%d %H:%M:%S").timestamp()
        except ValueError:
            pass
    for fmt in TIME_FORMATS:
        try:
            return (datetime.strptime(text, fmt) - datetime(1900, 1, 1)).total_seconds()
        except ValueError:
            pass
    return None
