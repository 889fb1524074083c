"""Files a launch reads at start (vLLM's `--config FILE.yaml`), read where the launch runs: on the host.

A launch on a host names a path on the host, so its file is read through the host's session (one read-only,
bounded command), never from this machine's disk, where a file of the same name may say something else.
Without a session (a recorded feed, a local host) the file is read here. Each failure is one sentence: the file
is missing, is no regular file, cannot be read, or is bigger than MAX_BYTES. A caller that asks again and again (the
host feed) asks the file's stamp first (``session_file_stamp``: one `stat`, no content) and reads it again only
when that changed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Awaitable, Callable

from mtptui.errors import UserError
from mtptui.remote.errors import RemoteError
from mtptui.remote.shell import Command, script
from mtptui.remote.transport import Completed

if TYPE_CHECKING:
    from mtptui.engines.registry import Launches
    from mtptui.ops.connect import HostSession
    from mtptui.ops.launches import Side

MAX_BYTES = 256 * 1024
FileReader = Callable[[str], Awaitable[str]]
# exit 3: missing, 4: no regular file, 5: not readable; else at most one byte more than the limit of its text
READ = ('[ -e "$1" ] || exit 3\n'
        '[ -f "$1" ] || exit 4\n'
        '[ -r "$1" ] || exit 5\n'
        'exec head -c "$2" -- "$1"\n')
# the file's device and inode, size, modification and change times (ns), or "-" when there is nothing to stat
STAMP = ('stat -L -c "%d:%i %s %.9Y %.9Z" -- "$1" 2>/dev/null && exit 0\n'
         'stat -L -c "%d:%i %s %Y %Z" -- "$1" 2>/dev/null || echo -\n')  # a stat without sub-second times
PROBLEMS = {3: "does not exist", 4: "is not a regular file", 5: "cannot be read (permission denied)"}


class HostFileError(UserError):
    """A file a launch names cannot be read where the launch runs, in one sentence."""


def _too_big(path: str, where: str) -> HostFileError:
    return HostFileError(f"{path} is bigger than {MAX_BYTES // 1024} KiB on {where} (mtptui reads no more)")


async def _run(session: HostSession, command: Command, path: str) -> Completed:
    """``command`` about ``path`` on the session's host; a connection that fails is one sentence."""
    try:
        return await session.transport.run(command, timeout=15)
    except RemoteError as exc:
        raise HostFileError(f"{path} could not be read on {session.host.name}: {exc}") from None


def session_file_reader(session: HostSession) -> FileReader:
    """Reads a file on the session's host (read-only, at most MAX_BYTES + 1 bytes come back)."""
    where = session.host.name

    async def read(path: str) -> str:
        command = Command.of(script(READ, path, MAX_BYTES + 1), f"read {path}", output_limit=MAX_BYTES + 1)
        done = await _run(session, command, path)
        if done.exit_status in PROBLEMS:
            raise HostFileError(f"{path} {PROBLEMS[done.exit_status]} on {where}")
        if not done.ok:
            lines = [line.strip() for line in done.err.splitlines() if line.strip()]
            raise HostFileError(f"{path} cannot be read on {where} ({lines[-1] if lines else done.exit_status})")
        if len(done.stdout) > MAX_BYTES:
            raise _too_big(path, where)
        return done.out

    return read


def session_file_stamp(session: HostSession) -> FileReader:
    """The stamp of a file on the session's host (device, inode, size, modification and change times; "-" when it
    cannot be stat'ed): the same stamp, the same content. A connection that fails is one sentence."""

    async def stamp(path: str) -> str:
        done = await _run(session, Command.of(script(STAMP, path), f"stat {path}", output_limit=4096), path)
        return done.out.strip() if done.ok else "-"

    return stamp


async def local_file_reader(path: str) -> str:
    """Reads a file on this machine (a host without a session), with the same limits and sentences."""
    if not os.path.lexists(path):
        raise HostFileError(f"{path} does not exist on this machine")
    if not os.path.isfile(path):
        raise HostFileError(f"{path} is not a regular file on this machine")
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as exc:
        raise HostFileError(f"{path} cannot be read on this machine ({exc.strerror})") from None
    if len(data) > MAX_BYTES:
        raise _too_big(path, "this machine")
    return data.decode("utf-8", "replace")


def file_reader(session: HostSession | None) -> FileReader:
    return session_file_reader(session) if session is not None else local_file_reader


async def with_launch_files(side: Side, model: Launches, read: FileReader) -> Side:
    """``side`` with the files its launch reads at start read by ``read`` and applied by its engine (vLLM: the
    `--config` file's options); unchanged when the launch names none. A failure is one sentence naming the side."""
    paths = model.files(side.flagset)
    if not paths:
        return side
    texts: dict[str, str] = {}
    for path in paths:
        try:
            texts[path] = await read(path)
        except HostFileError as exc:
            raise HostFileError(f"{side.label}: the file {exc}") from None
    side.flagset = model.with_files(side.flagset, texts, side.label)
    return side
