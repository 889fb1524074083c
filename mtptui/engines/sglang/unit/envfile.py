"""An EnvironmentFile= as systemd reads it (systemd.exec(5)): ``NAME=value`` lines, comments, quotes.

Lines starting with ``#`` or ``;`` are comments, a backslash at the end of a line joins the next one, the value
is stripped of surrounding whitespace, and a value in double quotes keeps its inner whitespace with ``\\``
escaping ``"``, ``\\``, ``$`` and a newline; in single quotes it is taken as written. A line without ``=`` or
with a name systemd would not accept is skipped, as systemd skips it (with a warning in its log).
"""

from __future__ import annotations

import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _logical_lines(text: str) -> list[str]:
    lines, current = [], ""
    for raw in text.splitlines():
        if not current and raw.lstrip().startswith(("#", ";")):
            continue
        if raw.endswith("\\") and not raw.endswith("\\\\"):
            current += raw[:-1]
            continue
        lines.append(current + raw)
        current = ""
    return lines + ([current] if current else [])


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r'\\(["\\$`\n])', r"\1", value[1:-1])
    return value


def parse_environment_file(text: str) -> dict[str, str]:
    """The variables an EnvironmentFile= gives a unit, in the order it sets them (later lines win)."""
    env: dict[str, str] = {}
    for line in _logical_lines(text):
        name, sep, value = line.strip().partition("=")
        name = name.strip()
        if sep and _NAME.fullmatch(name):
            env[name] = _unquote(value.strip())
    return env
