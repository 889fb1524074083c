"""SGLang's own help text of a flag, per release (data/flag_help.json, made by scripts/gen_flag_help.py)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import TypedDict


class HelpEntry(TypedDict):
    help: str
    versions: list[str]  # the releases whose help text this is, newest first


@lru_cache(maxsize=1)
def _help() -> dict[str, list[HelpEntry]]:
    text = resources.files("mtptui.engines.sglang.flags").joinpath("data/flag_help.json").read_text(encoding="utf-8")
    table: dict[str, list[HelpEntry]] = json.loads(text)
    return table


def flag_help(name: str, version: str | None = None) -> tuple[str, str] | None:
    """(help text, the release it is from) of a canonical flag name: ``version``'s when it has one, else the newest."""
    entries = _help().get(name)
    if not entries:
        return None
    for entry in entries:
        if version is not None and version in entry["versions"]:
            return entry["help"], version
    return entries[0]["help"], entries[0]["versions"][0]
