"""A lock on the host itself, held for the whole of a restart: two operators cannot restart one server at once.

    lock = HostLock(transport, "/etc/systemd/system/.sglang-qwen.service.mtptui-lock", "ana@laptop (...)")
    await lock.acquire()      # HostLocked naming the holder when another restart holds it
    ...
    await lock.release()

A small shell on the host takes ``flock`` on a file beside the unit (or the pid file), writes who holds it into
that file, then prints a heartbeat every second and keeps the lock until its reader goes away: the stream is
closed, the SSH channel drops (the transport ties the command to its channel), or mtptui dies (the heartbeat
meets a closed pipe). A lock never outlives the mtptui that took it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from mtptui.remote.errors import RemoteError
from mtptui.remote.shell import Command, script

if TYPE_CHECKING:
    from mtptui.remote.transport import Stream, Transport

# argv: LOCKFILE HOLDER. Prints "locked PID" and a heartbeat while it holds the lock; "busy WHO" (exit 75) when
# another process holds it.
# The lock is taken only on a regular file: a missing one is made by mktemp and hard-linked into place (ln never
# replaces what is there), a symbolic link or anything else at the path is refused, and the file opened is checked
# to be the one at the path (a link swapped in between is caught). The holder's note is written through the open
# descriptor (/dev/fd/9), never through the path. An existing lock file is locked even on a read-only or full
# disk (opened for reading); the note is written where the disk allows.
LOCK = r"""lock=$1; holder=$2
command -v flock >/dev/null 2>&1 || { echo "flock(1) is not installed (util-linux)" >&2; exit 127; }
refuse() { echo "refusing the lock file $lock: it is $1 (mtptui locks only a regular file it created)" >&2; exit 2; }
mkdir -p -- "$(dirname -- "$lock")" 2>/dev/null || :
if [ ! -e "$lock" ] && [ ! -h "$lock" ] && t=$(mktemp -- "$lock.XXXXXXXX" 2>/dev/null); then
  chmod 644 -- "$t"; ln -P -T -- "$t" "$lock" 2>/dev/null || :; rm -f -- "$t"
fi
[ ! -h "$lock" ] || refuse "a symbolic link"
[ -f "$lock" ] || refuse "not a regular file"
{ command exec 9<>"$lock"; } 2>/dev/null || command exec 9<"$lock" || exit 2
[ "$(stat -c %d:%i -- "$lock")" = "$(stat -L -c %d:%i -- /dev/fd/9)" ] || refuse "replaced while it was opened"
if ! flock -n 9; then
  printf 'busy %s\n' "$(head -c 600 <&9 | tr -d '\n')"
  exit 75
fi
printf '%s, pid %s on the host, since %s\n' "$holder" "$$" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" 2>/dev/null > /dev/fd/9
echo "locked $$"
while sleep 1 9>&-; do echo . || exit 0; done
""".strip()


class HostLocked(RemoteError):
    """Another restart holds the host's lock; ``holder`` says who, from where and since when."""

    def __init__(self, message: str, holder: str) -> None:
        super().__init__(message)
        self.holder = holder


class HostLock:
    """One flock on the host, held by a process that lives as long as this object's stream."""

    def __init__(self, transport: Transport, path: str, holder: str, prefix: tuple[str, ...] = ()) -> None:
        self.transport, self.path, self.holder, self.prefix = transport, path, holder, prefix
        self._stream: Stream | None = None
        self._watch: asyncio.Future[None] | None = None
        self.host_pid: str | None = None  # the holder's pid on the host, once this lock was taken

    def command(self) -> Command:
        return Command.of([*self.prefix, *script(LOCK, self.path, self.holder)], f"lock {self.path}",
                          changes_host=True)

    @property
    def held(self) -> bool:
        """True while the holder on the host is alive (its heartbeat still arrives)."""
        return self._watch is not None and not self._watch.done()

    async def acquire(self) -> None:
        """Take the lock, or raise HostLocked (someone else has it) or RemoteError (it could not be taken)."""
        stream = await self.transport.open_stream(self.command())
        first = await _first_line(stream)
        if first.startswith("locked"):
            self._stream, self._watch = stream, asyncio.ensure_future(_drain(stream))
            self.host_pid = first[len("locked"):].strip()
            return
        await stream.close()
        if first.startswith("busy"):
            who = _printable(first[len("busy"):].strip()) or "another mtptui that has just started"
            if self.host_pid and f", pid {self.host_pid} on the host," in who:
                return  # still held for this lock by the holder of a connection that dropped: ours until it ends
            raise HostLocked(f"another restart holds the lock on {self.transport.label}: {who} (lock file "
                             f"{self.path}); wait until it ends", who)
        why = stream.stderr_text().strip().splitlines()[-1:] or [f"exit status {stream.exit_status}"]
        raise RemoteError(f"cannot take the restart lock {self.path} on {self.transport.label}: {why[0]}")

    async def ensure(self) -> None:
        """Take the lock again if the connection that held it dropped (a reconnect releases it on the host)."""
        if not self.held:
            await self.release()
            await self.acquire()

    async def release(self) -> None:
        stream, watch, self._stream, self._watch = self._stream, self._watch, None, None
        if watch is not None:
            watch.cancel()
        if stream is not None:
            await stream.close()


async def _first_line(stream: Stream) -> str:
    data = b""
    while b"\n" not in data and len(data) < 4096:
        chunk = await stream.read(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode("utf-8", "replace").strip()


def _printable(text: str) -> str:
    """The holder as the other mtptui wrote it, without control characters (it comes from a file on the host)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


async def _drain(stream: Stream) -> None:
    """Read the heartbeat until the holder is gone (the stream ends or the connection drops)."""
    try:
        while await stream.read(4096):
            pass
    except RemoteError:
        pass
