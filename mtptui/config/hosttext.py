"""Host files as TOML text: parse one into a HostConfig (errors name the file and line), dump one back."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Iterable, Mapping

import tomli_w
from pydantic import ValidationError

from mtptui.config.models import HostConfig
from mtptui.errors import ConfigError

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*=""")


def _key_text(key: str) -> str:
    """A bare or quoted TOML key as tomllib reads it (escapes decoded)."""
    if key[0] not in "\"'":
        return key
    try:
        return next(iter(tomllib.loads(f"{key} = 0")))
    except (tomllib.TOMLDecodeError, StopIteration):
        return key[1:-1]


def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map every table header and key path in the text to its 1-based line (first occurrence)."""
    found: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        if header := _HEADER.match(line):
            table = tuple(part.strip().strip('"') for part in header.group(1).split("."))
            found.setdefault(table, number)
        elif key := _KEY.match(line):
            found.setdefault(table + (_key_text(key.group(1)),), number)
    return found


def _key_line(text: str, loc: Iterable[Any]) -> int | None:
    """Line of the deepest part of ``loc`` present in the file (tomllib keeps no positions)."""
    path = tuple(str(k) for k in loc if isinstance(k, str) and not k.startswith("function-"))
    lines = _key_lines(text)
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _clean_loc(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """Drop pydantic's union-tag step (``server.systemd.unit`` is ``server.unit`` in the file)."""
    if len(loc) > 1 and loc[0] == "server" and loc[1] in ("systemd", "process"):
        return loc[:1] + loc[2:]
    return loc


def _describe(error: Mapping[str, Any]) -> str:
    parts = _clean_loc(error["loc"])
    if error["type"] == "value_error" and len(parts) > 2 and parts[0] == "profiles" and parts[2] in ("env", "flags"):
        return f"profile {parts[1]!r}: {str(error['ctx']['error'])}"  # a name the validator refused: it says which
    loc = ".".join(str(part) for part in parts if not str(part).startswith("function-"))
    message = str(error["msg"]).removeprefix("Value error, ")  # a validator's own sentence, without pydantic's tag
    if error["type"] == "extra_forbidden":
        message = "unknown field"
    elif error["type"] == "missing":
        message = "required field is missing"
    return f"field {loc!r}: {message}" if loc else message


def parse_host(text: str, source: str = "<string>") -> HostConfig:
    """Parse and validate host TOML text; ``source`` names the file in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}") from None
    data.setdefault("name", Path(source).stem)
    try:
        return HostConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_every_error(exc, text, source)) from None


def _every_error(exc: ValidationError, text: str, source: str) -> str:
    """One line per problem, each with its file and line: a file with three mistakes is fixed in one go."""
    lines = []
    for error in exc.errors():
        line = _key_line(text, _clean_loc(error["loc"]))
        lines.append(f"{source}:{line}: {_describe(error)}" if line else f"{source}: {_describe(error)}")
    if len(lines) == 1:
        return lines[0]
    return f"{source}: {len(lines)} problems:\n" + "\n".join(f"  {line}" for line in lines)


def dump_host(host: HostConfig) -> str:
    """TOML text for a host, with only the fields that were set (so files stay short)."""
    data = host.model_dump(mode="json", exclude_unset=True, exclude_none=True)
    data["name"] = host.name
    data.setdefault("server", {})["manager"] = host.server.manager
    return tomli_w.dumps(data)
