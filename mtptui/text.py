"""Text from a host or a file, made safe to show on a terminal: controls and bidi overrides shown escaped.

A server's ``/server_info``, a log line, a unit or a flag value may hold terminal controls: an ESC sequence
retitles the terminal or writes the clipboard (OSC 0, OSC 52), a C1 control (U+0080-U+009F) is one for some
terminals, and a bidi control (U+202E ...) reorders what the operator reads. ``visible`` is the one function
every layer uses before such text reaches the terminal (CLI output, headers, toasts, tables, the log pane): each
of those characters is replaced by its escape, ``\\x1b`` or ``\\u202e``, so it is seen, not obeyed. Tab and
newline stay.
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")
"""C0 controls but tab and newline, DEL, C1 controls, and the bidi controls."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every terminal control and bidi control shown as its escape (``\\x1b``, ``\\x85``, ``\\u202e``)."""
    if not UNSAFE.search(text):
        return text
    return UNSAFE.sub(_escape, text)


def visible_json(text: str) -> str:
    """JSON text with the same characters as ``\\u`` escapes: the same JSON value, safe on a terminal.

    ``json.dumps`` escapes C0 controls itself, but with ``ensure_ascii=False`` it leaves DEL, C1 and bidi raw.
    """
    if not UNSAFE.search(text):
        return text
    return UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
