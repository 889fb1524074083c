"""Line prefixes: ANSI codes, container/supervisor wrappers, SGLang's `[date time ranks] ` and other logging formats.

`split_line(text)` returns the timestamp as printed, the rank tags (an unordered set: any subset of
DP/PP/ATTN_CP/MOE_DP/TP/EP, in any order, as the versions differ), and the bare message.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")

# `[2026-05-11 23:49:07.123 DP0 TP0]` content; time-only `16:43:29 TP0` (some 0.3.x); `,ms` tolerated.
HEAD = re.compile(r"(?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})?((?: [A-Z][A-Z_]*\d+)*)")
RANK = re.compile(r" ([A-Z][A-Z_]*)(\d+)")

# `2026-06-07 10:59:31,659 [INFO] sglang.srt.managers.scheduler_metrics_mixin: msg` (SGLANG_LOGGING_CONFIG_PATH)
DICT_CONFIG = re.compile(r"(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?) \[[A-Z]+\] [\w.<>-]+: ")
GPU_ID = re.compile(r"\[gpu_id=\d+\] ")

# Wrappers added outside SGLang, stripped in this order (each at most once).
CONTAINER = re.compile(r"(?:\d+\|)?[A-Za-z0-9_][\w.-]*\s*\| ")  # `llm0-1  | ` (compose), `3|qwen  | ` (pm2)
PY_LOGGING = re.compile(r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}) - [\w.<>-]+ - [A-Z]+ - ")
JOURNAL = re.compile(r"[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \S+ [\w.@/-]+(?:\[\d+\])?: ")
RAY = re.compile(r"\((?:\w+ )?pid=\d+(?:, ip=[\w.:]+)?\) ")


class Head(NamedTuple):
    """A parsed `[...]` log prefix: the timestamp as printed and the rank tags."""

    ts: str
    ranks: dict[str, int]


class Split(NamedTuple):
    """A line taken apart: `prefixed` is true when a logging prefix (not just a wrapper) was found."""

    ts: str | None
    ranks: dict[str, int]
    msg: str
    prefixed: bool


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text) if "\x1b" in text else text


@lru_cache(maxsize=512)
def parse_head(content: str) -> Head | None:
    """The content between `[` and `] ` of an SGLang prefix, or None when it is not one."""
    m = HEAD.fullmatch(content)
    if m is None:
        return None
    tags_start = m.start(1)
    if tags_start == len(content):
        return Head(content, {})
    return Head(content[:tags_start], {name: int(num) for name, num in RANK.findall(content, tags_start)})


def strip_wrappers(text: str) -> tuple[str, str | None]:
    """Remove container/supervisor/journal/Ray prefixes; return the rest and a wrapper timestamp if any."""
    ts = None
    m = CONTAINER.match(text)
    if m:
        text = text[m.end():]
    for wrapper in (PY_LOGGING, JOURNAL, RAY):
        m = wrapper.match(text)
        if m:
            ts = m.group(1) if wrapper is PY_LOGGING else ts
            text = text[m.end():]
    return text, ts


def split_line(text: str) -> Split:
    """Take one raw line apart into timestamp, ranks and message."""
    text = strip_ansi(text)
    wrapper_ts = None
    if text[:1] != "[":
        text, wrapper_ts = strip_wrappers(text)
    if text[:1] == "[":
        end = text.find("] ")
        head = parse_head(text[1:end]) if end > 0 else None
        if head is not None:
            return Split(head.ts, dict(head.ranks), _drop_gpu_id(text[end + 2:]), True)
    m = DICT_CONFIG.match(text)
    if m:
        return Split(m.group(1), {}, _drop_gpu_id(text[m.end():]), True)
    return Split(wrapper_ts, {}, _drop_gpu_id(text), wrapper_ts is not None)


def _drop_gpu_id(msg: str) -> str:
    """≈0.2.x messages start with `[gpu_id=0] `: not a rank tag of the contract, so it is dropped."""
    if msg[:8] == "[gpu_id=":
        m = GPU_ID.match(msg)
        if m:
            return msg[m.end():]
    return msg
