"""The files the running launch and the known-good profile read at start (vLLM's `--config FILE.yaml`), read on
the host for the drift line (mtptui.ops.drift.LaunchFiles), with the reader the diff and the restart use
(mtptui.ops.host_files.with_launch_files): the engine says which files a launch reads and what they mean.

The feed polls often, so a file is not read on every poll:
- the running launch's once per process (its pid and start time): the server read its file when it started, so a
  later edit does not change what it runs (what its log says it resolved, where it says it, is its own word);
- the known-good profile's again only when its stamp on the host changed (device, inode, size, modification and
  change times: one `stat` per poll, mtptui.ops.host_files.session_file_stamp), or the profile did.
A failure is kept as it is until then too: one sentence, never "no drift".
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mtptui.engines.registry import launches
from mtptui.errors import UserError
from mtptui.ops.drift import LaunchFiles
from mtptui.ops.host_files import FileReader, HostFileError, session_file_reader, session_file_stamp, \
    with_launch_files
from mtptui.ops.launches import Running, profile_side

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession

Held = tuple[str, "str | HostFileError"]  # (the stamp it was read at, its text or why it cannot be read)


class _Kept:
    """A reader that reads each path once (text or failure), until ``forget``."""

    def __init__(self, read: FileReader) -> None:
        self.read = read
        self.held: dict[str, str | HostFileError] = {}

    def forget(self) -> None:
        self.held = {}

    async def __call__(self, path: str) -> str:
        if path not in self.held:
            try:
                self.held[path] = await self.read(path)
            except HostFileError as exc:
                self.held[path] = exc
        return _given(self.held[path])


class _Stamped:
    """A reader that reads a path again only when its stamp on the host changed."""

    def __init__(self, read: FileReader, stamp: FileReader) -> None:
        self.read, self.stamp = read, stamp
        self.held: dict[str, Held] = {}

    async def __call__(self, path: str) -> str:
        stamp = await self.stamp(path)  # a connection that fails: one sentence, nothing kept
        held = self.held.get(path)
        if held is None or held[0] != stamp:
            try:
                held = (stamp, await self.read(path))
            except HostFileError as exc:
                held = (stamp, exc)
            self.held[path] = held
        return _given(held[1])


def _given(held: str | HostFileError) -> str:
    if isinstance(held, HostFileError):
        raise HostFileError(str(held))
    return held


class LaunchFileReader:
    """Reads, for one host session, the files of its running launch and of its known-good profile."""

    def __init__(self, session: HostSession) -> None:
        self.session = session
        read = session_file_reader(session)
        self._process: tuple[int, float | None] | None = None
        self._running = _Kept(read)
        self._good = _Stamped(read, session_file_stamp(session))
        self.last: LaunchFiles | None = None

    async def __call__(self, running: Running) -> LaunchFiles | None:
        """The running launch and the known-good profile with their files' options, or the sentence why a file
        cannot serve; None when neither reads a file (nothing to read: the launches are compared as they are),
        the host has no known-good profile or its engine refuses it (the drift says so itself)."""
        host = self.session.host
        if host.known_good is None:
            return None
        model = launches(host.engine)
        try:
            profile, good = profile_side(host, host.known_good)
        except UserError:
            return None
        launch: Any = running.side.flagset
        if not model.files(launch) and not model.files(good.flagset):
            return None
        process = (running.info.pid, running.info.started_at)
        if process != self._process:
            self._process = process
            self._running.forget()
        try:
            running_read = (await with_launch_files(replace(running.side), model, self._running)).flagset
            good_read = (await with_launch_files(good, model, self._good)).flagset
            found = LaunchFiles(host.known_good, profile, launch, running_read, good_read)
        except UserError as exc:  # a file that cannot be read, or whose options the engine refuses
            found = LaunchFiles(host.known_good, profile, launch, unreadable=str(exc))
        if found != self.last:
            self.last = found
        return self.last  # the same object while nothing changed: what is computed from it is not redone
