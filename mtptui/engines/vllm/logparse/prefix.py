"""vLLM's line prefix: `(PROCESS pid=N) LEVEL MM-DD HH:MM:SS [file.py:N] message`, and its older forms.

Current builds: `(APIServer pid=9568) INFO 12-01 19:58:38 [api_utils.py:286] ...`, with the process being
`APIServer`, `EngineCore`, `EngineCore_DP0`, `Worker`, `Worker_TP0`, `Worker_PP0_TP0`, `VllmWorker-0`, ...
(Ray adds `, ip=...` inside the parentheses; `VLLM_LOGGING_PREFIX` may put text before it). Older builds
print no process and no brackets: `INFO 10-16 19:05:47 metrics.py:367] ...`. Colour codes are removed first,
and the wrappers a journal or a container log puts in front of every line.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from mtptui.engines.sglang.logparse.prefix import ANSI, CONTAINER, JOURNAL

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
PREFIX = re.compile(
    r"(?:.{0,80}?\((?P<proc>[A-Za-z][\w-]*(?: rank=\d+)?) pid=(?P<pid>\d+)(?:, ip=[\w.:]+)?\) )?"
    r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<ts>\d\d-\d\d \d\d:\d\d:\d\d)(?:[.,]\d+)? "
    r"\[?(?P<where>[\w./-]+:\d+)\] ?")
RANK_PART = re.compile(r"_([A-Z]+)(\d+)")
NUMBERED = re.compile(r"[A-Za-z]+[- ](?:rank=)?(\d+)$")


class Split(NamedTuple):
    """One line taken apart; `prefixed` is true when vLLM's logging prefix was found."""

    prefixed: bool
    process: str | None
    pid: int | None
    level: str | None
    ts: str | None
    where: str | None
    msg: str


def ranks_of(process: str | None) -> dict[str, int]:
    """Rank tags of a process name: `Worker_PP0_TP1` -> {"PP": 0, "TP": 1}; `VllmWorker-2` -> {"rank": 2}."""
    if not process:
        return {}
    parts = {name: int(number) for name, number in RANK_PART.findall(process)}
    if parts:
        return parts
    numbered = NUMBERED.match(process)
    return {"rank": int(numbered.group(1))} if numbered else {}


def unwrap(text: str) -> str:
    """The line without colour codes and without a journal's or a container log's own prefix."""
    if "\x1b" in text:
        text = ANSI.sub("", text)
    if text[:1].isupper() and (journal := JOURNAL.match(text)) is not None:
        text = text[journal.end():]
    elif "| " in text[:60] and (container := CONTAINER.match(text)) is not None:
        text = text[container.end():]
    return text


def split_line(text: str) -> Split:
    text = unwrap(text)
    found = PREFIX.match(text)
    if found is None:
        return Split(False, None, None, None, None, None, text)
    proc, pid = found.group("proc"), found.group("pid")
    return Split(True, proc, int(pid) if pid else None, found.group("level"), found.group("ts"),
                 found.group("where"), text[found.end():])
