"""Where a server log is read from on the host, and how its stream is decoded into positioned chunks.

A file is read by a small Python reader on the host (``python3 -c FILE_READER``) that resumes at an exact
(inode, byte offset) and frames every piece of data with the offset it starts at, so truncation and rotation are
seen for what they are. The journal is read with ``journalctl -u UNIT -f -o json``, whose entries carry their
cursor. Resuming uses ``--cursor`` and drops the first entry when it is the one already delivered: the entry may
be gone (``journalctl --vacuum-files`` deleted the archived file holding it), and ``--after-cursor`` would then
skip the next one unseen. (``--show-cursor`` only prints a cursor when journalctl exits, which a follow never
does, so the per-entry cursor of the JSON output is what makes the resume exact.) journald's own note that its
rate limit dropped messages of the unit (``Suppressed N messages from UNIT``) is a chunk with ``gap``: the log
has a hole there, and no server wrote that line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Union

from mtptui.remote.shell import Command

# Runs on the host: argv = PATH INODE OFFSET TAIL_LINES WAIT [MARK]. Frames: b"INODE OFFSET LENGTH\n" + LENGTH bytes.
# INODE 0 means "no position yet": start TAIL_LINES lines before the end (-1: at OFFSET). An empty frame every
# 2 s of quiet is a heartbeat: writing to a connection that died ends the reader (SIGPIPE) instead of leaking it.
# A file missing at the start ends the reader with NO_SUCH_FILE, unless WAIT is 1 (a restart creates it).
# MARK (hex) is the last bytes before OFFSET: the file at PATH holds the position only if it holds them there.
# Rotation: a file is read to its end before the reader moves on, and it moves on only once the next file has
# data: a server started with nohup keeps writing the file renamed away (logrotate's create without a signal it
# heeds), and its lines go on there. Renamed away, a file is still open, or found again by its inode; truncated
# in place (copytruncate, or a size that shrank), its rest is in the copy beside it (NAME*), found by MARK. Such
# a rest is framed with the copy's inode at the same offset (the log goes on, it is not a new file). After a
# rotated file, the next one is the rotated file modified next (two rotations while the connection was down),
# else the file at PATH, each from 0.
NO_SUCH_FILE = 66
MARK_BYTES = 64  # as in FILE_READER
# The program text travels in the follow command, word for word: E501 is waived for it, not wrapped.
FILE_READER = r"""
import os, stat, sys, time
path, ino, off, tail = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
mark = bytes.fromhex(sys.argv[6]) if len(sys.argv) > 6 else b""
if sys.argv[5:6] != ["1"] and not os.path.exists(path):
    sys.stderr.write("no such file: %s\n" % path)
    sys.exit(66)
folder, base = os.path.split(path)
out = sys.stdout.buffer
def frame(data=b""):
    out.write(b"%d %d %d\n" % (ino, off, len(data)) + data)
    out.flush()
def start_of_last(f, size, n):
    pos, found = size, 0
    while pos > 0:
        step = min(65536, pos)
        pos -= step
        f.seek(pos)
        block = f.read(step)
        for i in range(len(block) - 1, -1, -1):
            if pos + i == size - 1:
                continue
            if block[i] == 10:
                found += 1
                if found == n:
                    return pos + i + 1
    return 0
def holds(f):
    if os.fstat(f.fileno()).st_size < off:
        return False
    return not mark or os.pread(f.fileno(), len(mark), off - len(mark)) == mark
def rotated():
    for entry in os.scandir(folder or "."):
        try:
            st = entry.stat(follow_symlinks=False)
            if entry.name != base and entry.name.startswith(base) and stat.S_ISREG(st.st_mode):
                yield entry.path, st
        except OSError:
            pass
def rest():
    best = newest = None
    for name, st in rotated():
        if st.st_ino != ino and not (mark and (newest is None or st.st_mtime_ns > newest)):
            continue
        try:
            f = open(name, "rb")
        except OSError:
            continue
        if not holds(f):
            f.close()
            continue
        if best:
            best.close()
        best, newest = f, st.st_mtime_ns
        if st.st_ino == ino:
            break
    return best
def after(done):
    later = [(st.st_mtime_ns, name) for name, st in rotated() if st.st_mtime_ns > done.st_mtime_ns and st.st_ino != done.st_ino]
    for _, name in sorted(later):
        try:
            return open(name, "rb")
        except OSError:
            pass
    return None
def written(name):
    try:
        return os.stat(name).st_size > 0
    except OSError:
        return False
def reopen():
    global ino, off, mark
    try:
        f = open(path, "rb")
    except OSError:
        return None, False
    st = os.fstat(f.fileno())
    if ino == 0:
        if tail >= 0:
            off = start_of_last(f, st.st_size, tail) if tail > 0 else st.st_size
        ino = st.st_ino
        mark = os.pread(f.fileno(), min(off, 64), off - min(off, 64))
        return f, False
    if st.st_ino == ino and holds(f):
        return f, False
    old = rest() if ino > 0 else None
    if old:
        f.close()
        ino = os.fstat(old.fileno()).st_ino
        return old, True
    ino, off, mark = st.st_ino, 0, b""
    return f, False
f, rotated_away, idle = None, False, 0
while True:
    if f is None:
        f, rotated_away = reopen()
        if f is None:
            time.sleep(0.2)
            continue
        frame()
    try:
        moved = rotated_away or os.stat(path).st_ino != ino
    except OSError:
        moved = False
    f.seek(off)
    data = f.read(65536)
    if not rotated_away and not holds(f):
        old = rest()
        if old:
            f.close()
            f, rotated_away, ino = old, True, os.fstat(old.fileno()).st_ino
        else:
            off, mark = 0, b""
        frame()
        continue
    if data:
        frame(data)
        off += len(data)
        mark = (mark + data[-64:])[-64:]
        idle = 0
        continue
    if moved:
        nxt = after(os.fstat(f.fileno()))
        if nxt is None and not written(path):
            idle += 1
            if idle % 20 == 0:
                frame()
            time.sleep(0.1)
            continue
        f.close()
        f, ino, off, mark = nxt, -1, 0, b""
        if nxt:
            rotated_away, ino = True, os.fstat(nxt.fileno()).st_ino
            frame()
        continue
    idle += 1
    if idle % 20 == 0:
        frame()
    time.sleep(0.1)
"""  # noqa: E501


@dataclass(frozen=True)
class FilePosition:
    """Byte offset in one file (identified by inode); ``mark`` is the file's last bytes before it, when known."""

    inode: int
    offset: int
    mark: bytes = field(default=b"", compare=False, repr=False)


@dataclass(frozen=True)
class JournalPosition:
    """A journal cursor: the last entry delivered."""

    cursor: str


LogPosition = Union[FilePosition, JournalPosition, None]


@dataclass(frozen=True)
class Start:
    """Where to begin when there is no position yet: ``lines`` before the end, or everything (None); ``since``
    a time in journalctl's words (``2026-11-29 14:30:00``, ``-30min``, ``@EPOCH``): only a journal has times."""

    lines: int | None = 0
    since: str | None = None

    @classmethod
    def since_time(cls, when: str) -> "Start":
        return cls(None, when)

    @classmethod
    def end(cls) -> "Start":
        return cls(0)

    @classmethod
    def beginning(cls) -> "Start":
        return cls(None)

    @classmethod
    def tail(cls, lines: int) -> "Start":
        return cls(max(0, lines))


@dataclass(frozen=True)
class LogChunk:
    """Log bytes in order; ``position`` is where the log stands after them (the resume point).

    ``reset`` marks a discontinuity: the file was truncated or replaced, so these bytes start a new file. ``gap``
    is how many lines are missing here (journald's rate limit dropped them); ``data`` then says so. A chunk from
    no followed log (a recorded or synthetic feed) has no ``position``.
    """

    data: bytes
    position: LogPosition = None
    reset: bool = False
    gap: int | None = None


class FrameDecoder:
    """Decodes FILE_READER frames; a partial frame stays buffered and is never delivered."""

    def __init__(self, position: FilePosition | None) -> None:
        self.buffer = bytearray()
        self.expected = position

    def feed(self, data: bytes) -> list[LogChunk]:
        self.buffer += data
        chunks: list[LogChunk] = []
        while (newline := self.buffer.find(b"\n")) >= 0:
            inode, offset, length = (int(x) for x in bytes(self.buffer[:newline]).split())
            end = newline + 1 + length
            if len(self.buffer) < end:
                break
            payload = bytes(self.buffer[newline + 1:end])
            del self.buffer[:end]
            chunks.append(self._chunk(inode, offset, payload))
        return chunks

    def _chunk(self, inode: int, offset: int, payload: bytes) -> LogChunk:
        """A frame at the expected offset continues the log, even in another inode (a rotated file's rest)."""
        expected = self.expected
        follows = expected is not None and offset == expected.offset
        kept = expected.mark if expected is not None and follows else b""
        mark = (kept + payload[-MARK_BYTES:])[-MARK_BYTES:]
        self.expected = FilePosition(inode, offset + len(payload), mark)
        return LogChunk(payload, self.expected, reset=expected is not None and not follows)


DROPPED = "a596d6fe7bfa4994828e72309e95d61e"  # MESSAGE_ID of journald's "Suppressed N messages from UNIT"


class JournalDecoder:
    """Decodes ``journalctl -o json`` lines into message lines with their cursor; ``skip`` is the cursor of the
    entry already delivered (a resume by ``--cursor`` starts with it when it still exists)."""

    def __init__(self, skip: str | None = None) -> None:
        self.buffer = bytearray()
        self.skip = skip

    def feed(self, data: bytes) -> list[LogChunk]:
        self.buffer += data
        chunks: list[LogChunk] = []
        while (newline := self.buffer.find(b"\n")) >= 0:
            line = bytes(self.buffer[:newline])
            del self.buffer[:newline + 1]
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            cursor, skip, self.skip = entry.get("__CURSOR"), self.skip, None
            if cursor and cursor != skip:
                chunks.append(_chunk(entry, JournalPosition(cursor)))
        return chunks


def _chunk(entry: dict[str, object], position: JournalPosition) -> LogChunk:
    dropped = str(entry.get("N_DROPPED") or "")
    if entry.get("MESSAGE_ID") == DROPPED and dropped.isdigit():
        unit = str(entry.get("MESSAGE") or "").rpartition(" from ")[2] or "the unit"
        note = f"journald dropped {dropped} lines of {unit} here (its rate limit)\n"
        return LogChunk(note.encode(), position, gap=int(dropped))
    return LogChunk(_message(entry.get("MESSAGE")), position)


def _message(value: object) -> bytes:
    """MESSAGE as bytes: journald gives a string, a list of byte values (binary), or null."""
    if value is None:
        return b""
    if isinstance(value, list):
        return bytes(int(b) & 0xFF for b in value) + b"\n"
    return str(value).encode("utf-8") + b"\n"


@dataclass(frozen=True)
class FileLog:
    """A log file on the host."""

    path: str
    python: str = "python3"

    has_times = False  # a file's lines carry the server's own timestamps, which the reader does not read

    def command(self, position: LogPosition, start: Start, wait: bool = False) -> Command:
        """The reader; ``wait`` waits for a missing file instead of ending with NO_SUCH_FILE."""
        inode, offset = (position.inode, position.offset) if isinstance(position, FilePosition) else (0, 0)
        mark = position.mark.hex() if isinstance(position, FilePosition) and position.mark else None
        tail = -1 if position is not None or start.lines is None else start.lines
        words: list[str | int] = [self.python, "-c", FILE_READER, self.path, inode, offset, tail, int(wait)]
        return Command.of(words + ([mark] if mark else []), f"follow {self.path}")

    def decoder(self, position: LogPosition) -> FrameDecoder:
        return FrameDecoder(position if isinstance(position, FilePosition) else None)

    def describe(self) -> str:
        return self.path


# one JSON object per entry, with its __CURSOR (and what tells journald's note of dropped lines apart)
JSON_ENTRIES = ("-o", "json", "--output-fields=MESSAGE,MESSAGE_ID,N_DROPPED")


@dataclass(frozen=True)
class JournalLog:
    """The journal of a systemd unit (``prefix`` e.g. ["sudo"] when the journal needs it)."""

    unit: str
    prefix: tuple[str, ...] = ()
    has_times = True  # journalctl --since

    def journalctl(self, *options: str) -> list[str]:
        """``journalctl -u UNIT OPTIONS --no-pager`` through the prefix: every journal read is built here."""
        return [*self.prefix, "journalctl", "-u", self.unit, *options, "--no-pager"]

    def command(self, position: LogPosition, start: Start, wait: bool = False) -> Command:
        if isinstance(position, JournalPosition):
            where = ["--cursor", position.cursor]  # the decoder drops that entry itself (module doc)
        elif start.since is not None:
            where = ["-n", "all", "--since", start.since]
        else:
            where = ["-n", "all" if start.lines is None else str(start.lines)]
        return Command.of([*self.journalctl("-f", *JSON_ENTRIES), *where], f"follow the journal of {self.unit}")

    def last_entry(self) -> Command:
        """The newest entry with its cursor (where a watch of what comes next starts)."""
        return Command.of(self.journalctl("-n", "1", *JSON_ENTRIES), "read the journal's last cursor")

    def last_line(self) -> Command:
        """The newest message as plain text (does the journal answer at all?)."""
        return Command.of(self.journalctl("-n", "1", "-o", "cat"), f"read the journal of {self.unit}")

    def decoder(self, position: LogPosition) -> JournalDecoder:
        return JournalDecoder(position.cursor if isinstance(position, JournalPosition) else None)

    def describe(self) -> str:
        return f"journal of {self.unit}"
