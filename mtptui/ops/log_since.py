"""Where to read the journal from again, in the operator's words: a time, or the last restart of the server.

``journal_since("14:30")`` is journalctl's ``--since 14:30:00`` (today); a date and time, a relative time
(``-30min``, ``-2h``), ``today`` and ``yesterday`` pass as journalctl reads them; ``restart`` is the start of the
running server (its process's start time, ``@EPOCH``), so the journal shows that startup from its first line
even when it is older than the lines the dashboard reads at first. Anything else is one sentence.
"""

from __future__ import annotations

import re

from mtptui.errors import UserError

RESTART = "restart"
MARGIN_S = 2  # a little before the process's start: systemd's own "Starting ..." line comes first
CLOCK = re.compile(r"\d{1,2}:\d{2}(:\d{2})?")
DATE_CLOCK = re.compile(r"\d{4}-\d{2}-\d{2}( \d{1,2}:\d{2}(:\d{2})?)?")
RELATIVE = re.compile(r"-\d+ ?(s|sec|min|m|h|d)")
WORDS = ("today", "yesterday")
HINT = "a time (14:30, 2026-11-29 14:30, -30min, -2h, today) or 'restart'"


def journal_since(text: str, started_at: float | None) -> tuple[str, str]:
    """(journalctl --since value, how the log pane names it) for what the operator typed."""
    words = " ".join(text.split())
    if words == RESTART:
        if started_at is None:
            raise UserError("the running server's start is not known yet, so there is no restart to read from")
        return f"@{int(started_at) - MARGIN_S}", "the server's last start"
    if CLOCK.fullmatch(words):
        return words if words.count(":") == 2 else f"{words}:00", f"{words} today"
    if RELATIVE.fullmatch(words):
        return words.replace(" ", ""), f"{words.removeprefix('-')} ago"
    if DATE_CLOCK.fullmatch(words) or words in WORDS:
        return words, words
    raise UserError(f"read the journal from {text!r}? Give {HINT}.")
