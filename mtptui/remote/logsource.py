"""Where a server log is read from on the host, and how its stream is decoded into positioned chunks.

A file is read by a small Python reader on the host (``python3 -c FILE_READER``) that resumes at an exact
(inode, byte offset) and frames every piece of data with the offset it starts at, so truncation and rotation are
seen for what they are. The journal is read with ``journalctl -u UNIT -f -o json``, whose entries carry their
cursor; resuming uses ``--after-cursor``. (``--show-cursor`` only prints a cursor when journalctl exits, which
a follow never does, so the per-entry cursor of the JSON output is what makes the resume exact.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Union

from mtptui.remote.shell import Command

# Runs on the host: argv = PATH INODE OFFSET TAIL_LINES WAIT. Frames: b"INODE OFFSET LENGTH\n" + LENGTH bytes.
# INODE 0 means "no position yet": start TAIL_LINES lines before the end (-1: at OFFSET). An empty frame every
# 2 s of quiet is a heartbeat: writing to a connection that died ends the reader (SIGPIPE) instead of leaking it.
# A file missing at the start ends the reader with NO_SUCH_FILE, unless WAIT is 1 (a restart creates it).
NO_SUCH_FILE = 66
FILE_READER = r"""
import os, sys, time
path, ino, off, tail = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if sys.argv[5:6] != ["1"] and not os.path.exists(path):
    sys.stderr.write("no such file: %s\n" % path)
    sys.exit(66)
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
f, idle = None, 0
while True:
    if f is None:
        try:
            f = open(path, "rb")
        except OSError:
            time.sleep(0.2)
            continue
        st = os.fstat(f.fileno())
        if st.st_ino != ino:
            if ino == 0 and tail >= 0:
                off = start_of_last(f, st.st_size, tail) if tail > 0 else st.st_size
            elif ino != 0:
                off = 0
            ino = st.st_ino
        frame()
    if os.fstat(f.fileno()).st_size < off:
        off = 0
        frame()
    f.seek(off)
    data = f.read(65536)
    if data:
        frame(data)
        off += len(data)
        idle = 0
        continue
    try:
        moved = os.stat(path).st_ino != ino
    except OSError:
        moved = False
    if moved:
        f.close()
        f, ino, off = None, -1, 0
        continue
    idle += 1
    if idle % 20 == 0:
        frame()
    time.sleep(0.1)
"""


@dataclass(frozen=True)
class FilePosition:
    """Byte offset in one file (identified by inode)."""

    inode: int
    offset: int


@dataclass(frozen=True)
class JournalPosition:
    """A journal cursor: the last entry delivered."""

    cursor: str


LogPosition = Union[FilePosition, JournalPosition, None]


@dataclass(frozen=True)
class Start:
    """Where to begin when there is no position yet: ``lines`` before the end, or everything (None)."""

    lines: int | None = 0

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

    ``reset`` marks a discontinuity: the file was truncated or replaced, so these bytes start a new file.
    """

    data: bytes
    position: LogPosition
    reset: bool = False


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
            reset = self.expected is not None and (inode, offset) != (self.expected.inode, self.expected.offset)
            self.expected = FilePosition(inode, offset + length)
            chunks.append(LogChunk(payload, self.expected, reset))
        return chunks


class JournalDecoder:
    """Decodes ``journalctl -o json`` lines into message lines with their cursor."""

    def __init__(self) -> None:
        self.buffer = bytearray()

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
            cursor = entry.get("__CURSOR")
            if cursor:
                chunks.append(LogChunk(_message(entry.get("MESSAGE")), JournalPosition(cursor)))
        return chunks


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

    def command(self, position: LogPosition, start: Start, wait: bool = False) -> Command:
        """The reader; ``wait`` waits for a missing file instead of ending with NO_SUCH_FILE."""
        inode, offset = (position.inode, position.offset) if isinstance(position, FilePosition) else (0, 0)
        tail = -1 if position is not None or start.lines is None else start.lines
        return Command.of([self.python, "-c", FILE_READER, self.path, inode, offset, tail, int(wait)],
                          f"follow {self.path}")

    def decoder(self, position: LogPosition) -> FrameDecoder:
        return FrameDecoder(position if isinstance(position, FilePosition) else None)

    def describe(self) -> str:
        return self.path


@dataclass(frozen=True)
class JournalLog:
    """The journal of a systemd unit (``prefix`` e.g. ["sudo"] when the journal needs it)."""

    unit: str
    prefix: tuple[str, ...] = ()

    def command(self, position: LogPosition, start: Start, wait: bool = False) -> Command:
        words = [*self.prefix, "journalctl", "-u", self.unit, "-f", "-o", "json", "--output-fields=MESSAGE",
                 "--no-pager"]
        if isinstance(position, JournalPosition):
            words += ["--after-cursor", position.cursor]
        else:
            words += ["-n", "all" if start.lines is None else str(start.lines)]
        return Command.of(words, f"follow the journal of {self.unit}")

    def decoder(self, position: LogPosition) -> JournalDecoder:
        return JournalDecoder()

    def describe(self) -> str:
        return f"journal of {self.unit}"
