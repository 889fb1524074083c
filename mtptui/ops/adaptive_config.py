"""The adaptive speculation config files of a diff's sides, read on the host (over SSH for a remote one).

A side with ``--speculative-adaptive`` moves between candidate steps that its config file names
(``--speculative-adaptive-config FILE.json``; SGLang's defaults without one). The flags alone do not show them,
so the diff reads each named file on the host (read-only, bounded) and shows its content and the candidates the
side's release takes from it (mtptui.engines.sglang.adaptive).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from mtptui.remote.errors import RemoteError
from mtptui.remote.shell import Command
from mtptui.engines.sglang.adaptive import (
    CONFIG_FLAG, FLAG, TIERED, AdaptiveConfigError, candidates_of, read_config, start, tiers,
)

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ops.launches import Side

MAX_BYTES = 64 * 1024
Reader = Callable[[str], Awaitable["str | None"]]


@dataclass(frozen=True)
class AdaptiveFile:
    """One side's adaptive speculation: its config file (None: SGLang's defaults), content, candidates, or why
    they are not known."""

    side: str
    path: str | None
    content: str | None
    candidates: tuple[int, ...] | None
    problem: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"side": self.side, "path": self.path, "content": self.content,
                "candidates": list(self.candidates) if self.candidates is not None else None, "problem": self.problem}

    def line(self) -> str:
        where = self.path or "no config file (SGLang's defaults)"
        known = " ".join(map(str, self.candidates)) if self.candidates is not None else self.problem
        shown = f": {self.content}" if self.content is not None else ""
        return f"{self.side}: adaptive, {where}{shown} → candidate steps {known}"


def session_reader(session: HostSession) -> Reader:
    """Reads a file on the session's host (``head -c``: at most MAX_BYTES); None when it cannot be read."""
    async def read(path: str) -> str | None:
        command = Command.of(["head", "-c", MAX_BYTES, "--", path], f"read {path}")
        try:
            done = await session.transport.run(command, timeout=10)
        except RemoteError:
            return None
        return done.out if done.ok else None

    return read


async def local_reader(path: str) -> str | None:
    """Reads a file on this machine (a host without a session: the demo's, a recorded one)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read(MAX_BYTES)
    except OSError:
        return None


def reader_of(session: HostSession | None) -> Reader:
    return session_reader(session) if session is not None else local_reader


async def adaptive_files(sides: list[Side], read: Reader) -> list[AdaptiveFile]:
    """The adaptive speculation of every side that turns it on, its file read with ``read``."""
    return [await _of(side, read) for side in sides if side.flagset.get(FLAG)]


async def _of(side: Side, read: Reader) -> AdaptiveFile:
    version, path = side.flagset.version, side.flagset.get(CONFIG_FLAG)
    content = await read(str(path)) if path is not None else None
    if path is not None and content is None:
        return AdaptiveFile(side.label, str(path), None, None, "not known: the file cannot be read on the host")
    steps = side.flagset.get("--speculative-num-steps")
    try:
        config = read_config(content, version) if content is not None else None
        untiered = version not in TIERED and isinstance(steps, int)  # 0.5.12.post1 adds the launch's steps
        candidates = start(version, config, steps).candidates if untiered else candidates_of(tiers(version, config))
    except AdaptiveConfigError as exc:
        return AdaptiveFile(side.label, path, _compact(content), None, f"not known: SGLang refuses it ({exc})")
    return AdaptiveFile(side.label, path, _compact(content), candidates)


def _compact(content: str | None) -> str | None:
    """The file's JSON on one line (as written when it is no JSON)."""
    if content is None:
        return None
    try:
        return json.dumps(json.loads(content), separators=(", ", ": "))
    except ValueError:
        return " ".join(content.split())[:200]
