"""Write a host file back: only the tables that changed are rewritten, the file's mode and comments are kept.

TOML is read by tomllib and written by tomli-w, which keeps no comments; so saving a profile rewrites only that
profile's tables (``[profiles.NAME]``, ``.flags``, ``.env``, written by tomli-w) and the ``known_good`` line,
and keeps every other line of the file as it was. The result is read back and must give the same host; when it
does not (a layout this splice does not know, other fields changed), the whole file is written by tomli-w.

The new file and its ``.bak`` keep the old file's permissions (a 0600 file stays 0600); a new file is 0600. Each
is written to a temporary file and renamed, so it is complete or absent.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import tomli_w

from mtptui.config.hosttext import dump_host, parse_host
from mtptui.config.models import HostConfig
from mtptui.errors import ConfigError

NEW_FILE_MODE = 0o600
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KNOWN_GOOD = re.compile(r"""^(\s*known_good\s*=\s*)("(?:[^"\\]|\\.)*"|'[^']*')(.*)$""")


def write_host(host: HostConfig, path: str | os.PathLike[str]) -> None:
    """Save ``host`` to ``path``: a splice of the old text when it can be, keeping the mode; ``.bak`` kept."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old = path.read_bytes()
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        _write_atomic(path, dump_host(host).encode("utf-8"), NEW_FILE_MODE)
        return
    text = spliced(old.decode("utf-8", "replace"), host, str(path)) or dump_host(host)
    _write_atomic(path.with_name(path.name + ".bak"), old, mode)
    _write_atomic(path, text.encode("utf-8"), mode)


def _write_atomic(path: Path, data: bytes, mode: int) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(fd, mode)  # the umask may have taken bits away
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def spliced(text: str, host: HostConfig, source: str) -> str | None:
    """``text`` with the changed profiles and known_good rewritten; None when only a full rewrite would do."""
    try:
        old = parse_host(text, source)
    except ConfigError:  # an unreadable old file is simply written whole
        return None
    if old.model_copy(update={"profiles": host.profiles, "known_good": host.known_good}) != host:
        return None
    lines = text.splitlines(keepends=True)
    for name, profile in host.profiles.items():
        if old.profiles.get(name) != profile:
            lines = _with_profile(lines, name, profile.model_dump(mode="json", exclude_unset=True))
    if old.known_good != host.known_good:
        lines = _with_known_good(lines, host.known_good)
    result = "".join(lines)
    try:
        return result if parse_host(result, source) == host else None
    except ConfigError:  # the splice gave no valid host: write it whole
        return None


def _header_path(line: str) -> tuple[str, ...] | None:
    found = _HEADER.match(line)
    return tuple(part.strip().strip("\"'") for part in found.group(1).split(".")) if found else None


def _with_profile(lines: list[str], name: str, profile: dict[str, Any]) -> list[str]:
    """The profile's tables replaced by tomli-w's text, at the place of the first one (or at the end)."""
    table = tomli_w.dumps({"profiles": {name: profile}})
    regions = _profile_regions(lines, name)
    if not regions:
        tail = "" if not lines or lines[-1].endswith("\n") else "\n"
        return lines + [tail + "\n" + table.rstrip("\n") + "\n"]
    out, first = [], regions[0][0]
    for index, line in enumerate(lines):
        if index == first:
            out.append(table.rstrip("\n") + "\n")
        if not any(start <= index < end for start, end in regions):
            out.append(line)
    return out


def _profile_regions(lines: list[str], name: str) -> list[tuple[int, int]]:
    """[start, end) of each table of profile ``name``: its header up to its last key (comments after it stay)."""
    regions, start = [], None
    for index, line in enumerate(lines + ["[end-of-file]\n"]):
        path = _header_path(line)
        if path is None:
            continue
        if start is not None:
            end = index
            while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
                end -= 1
            regions.append((start, end))
            start = None
        if path[:2] == ("profiles", name):
            start = index
    return regions


def _with_known_good(lines: list[str], name: str | None) -> list[str]:
    """The top-level ``known_good = ...`` line set to ``name`` (its comment kept), or added before the tables."""
    value = tomli_w.dumps({"known_good": name}).split("=", 1)[1].strip() if name is not None else None
    first_table = next((i for i, line in enumerate(lines) if _header_path(line)), len(lines))
    for index in range(first_table):
        found = _KNOWN_GOOD.match(lines[index].rstrip("\n"))
        if found:
            if value is None:
                return lines[:index] + lines[index + 1:]
            return lines[:index] + [f"{found.group(1)}{value}{found.group(3)}\n"] + lines[index + 1:]
    if value is None:
        return lines
    return lines[:first_table] + [f"known_good = {value}\n"] + lines[first_table:]
