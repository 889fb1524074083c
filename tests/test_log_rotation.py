"""The file reader (FILE_READER, run as a real process on this machine) through each kind of log rotation.

Each case rotates the log while the reader runs (live) or while no reader runs and a new one resumes at the
position the last delivered chunk gave (a reconnect). The lab test (test_lab_rotation.py) does the same over
SSH with connections killed; here each case is small and named.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mtptui.remote.logsource import FILE_READER, NO_SUCH_FILE, FileLog, FilePosition, FrameDecoder, LogChunk, Start


class Reader:
    """One FILE_READER process from ``position``; ``until`` reads its frames until the log ends with some bytes."""

    def __init__(self, path: Path, position: FilePosition | None = None, start: Start = Start.beginning()) -> None:
        words = list(FileLog(str(path), python=sys.executable).command(position, start).words)
        self.process = subprocess.Popen(words, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.set_blocking(self.process.stdout.fileno(), False)
        self.decoder = FrameDecoder(position)
        self.chunks: list[LogChunk] = []

    def until(self, end: bytes, timeout: float = 20) -> bytes:
        deadline = time.monotonic() + timeout
        while not self.text().endswith(end) and time.monotonic() < deadline:
            data = self.process.stdout.read(65536)
            if data:
                self.chunks += self.decoder.feed(data)
            else:
                time.sleep(0.01)
        return self.text()

    def text(self) -> bytes:
        return b"".join(chunk.data for chunk in self.chunks)

    @property
    def position(self) -> FilePosition:
        return self.chunks[-1].position

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "sglang.log"
    path.write_bytes(b"")
    return path


def append(path: Path, *lines: str) -> None:
    with open(path, "ab") as handle:
        handle.write("".join(f"{line}\n" for line in lines).encode())


def copytruncate(path: Path) -> None:
    shutil.copyfile(path, f"{path}.1")
    os.truncate(path, 0)


def rename(path: Path, keep: int = 1) -> None:
    os.rename(path, f"{path}.{keep}")
    path.write_bytes(b"")


@pytest.fixture
def reader():
    readers: list[Reader] = []

    def start(*args, **kwargs) -> Reader:
        readers.append(Reader(*args, **kwargs))
        return readers[-1]

    yield start
    for one in readers:
        one.stop()


def test_live_copytruncate_reads_the_copy_to_its_end_first(log: Path, reader) -> None:
    one = reader(log)
    append(log, "a1", "a2")
    one.until(b"a2\n")
    append(log, "a3", "a4")  # written, and then copied away before the reader saw them
    copytruncate(log)
    append(log, "b1")
    assert one.until(b"b1\n") == b"a1\na2\na3\na4\nb1\n"
    marks = [b"|" if chunk.reset else chunk.data for chunk in one.chunks]
    assert b"".join(marks) == b"a1\na2\na3\na4\n|b1\n"  # the copy's rest continues the log; b1 starts a new file


def test_live_rename_reads_the_old_file_to_its_end_first(log: Path, reader) -> None:
    one = reader(log)
    append(log, "a1")
    one.until(b"a1\n")
    append(log, "a2")
    rename(log)
    append(log, "b1")
    assert one.until(b"b1\n") == b"a1\na2\nb1\n"


def test_resume_after_a_copytruncate_reads_the_rest_from_the_copy(log: Path, reader) -> None:
    append(log, "a1", "a2")
    first = reader(log)
    first.until(b"a2\n")
    first.stop()
    append(log, "a3")
    copytruncate(log)
    append(log, "b1", "b2", "b3", "b4", "b5", "b6")  # longer than the old offset: the size alone hides the cut
    again = reader(log, first.position)
    assert again.until(b"b6\n") == b"a3\nb1\nb2\nb3\nb4\nb5\nb6\n"


def test_resume_after_a_rename_finds_the_old_file_by_its_inode(log: Path, reader) -> None:
    append(log, "a1")
    first = reader(log)
    first.until(b"a1\n")
    first.stop()
    append(log, "a2")
    rename(log, keep=3)  # any name beside it: found by inode, not by name
    append(log, "b1")
    again = reader(log, first.position)
    assert again.until(b"b1\n") == b"a2\nb1\n"


def test_two_rotations_while_away_are_read_in_order(log: Path, reader) -> None:
    append(log, "a1")
    first = reader(log)
    first.until(b"a1\n")
    first.stop()
    append(log, "a2")
    copytruncate(log)  # a1 a2 → sglang.log.1 (a copy)
    time.sleep(0.01)
    append(log, "b1")
    os.rename(f"{log}.1", f"{log}.2")
    rename(log)  # b1 → sglang.log.1 (the same inode as the position, truncated since)
    time.sleep(0.01)
    append(log, "c1")
    again = reader(log, first.position)
    assert again.until(b"c1\n") == b"a2\nb1\nc1\n"


def test_a_resume_without_a_mark_still_sees_a_shrunk_file(log: Path, reader) -> None:
    append(log, "a1", "a2", "a3")
    size = log.stat().st_size
    os.truncate(log, 0)
    append(log, "b1")
    one = reader(log, FilePosition(log.stat().st_ino, size))  # as a restart's watch gets it: inode and size
    assert one.until(b"b1\n") == b"b1\n" and any(chunk.reset for chunk in one.chunks)


def test_the_mark_travels_with_the_position_and_is_the_last_bytes() -> None:
    decoder = FrameDecoder(FilePosition(7, 10, b"xyz"))
    (chunk,) = decoder.feed(b"7 10 3\nab\n")
    assert chunk.position == FilePosition(7, 13) and chunk.position.mark == b"xyzab\n"
    (rest,) = decoder.feed(b"9 13 2\nc\n")  # another inode at the same offset: a rotated file's rest
    assert not rest.reset and rest.position.mark == b"xyzab\nc\n"
    (new,) = decoder.feed(b"11 0 2\nd\n")
    assert new.reset and new.position.mark == b"d\n"
    words = list(FileLog("/x.log").command(FilePosition(9, 15, b"c\n"), Start.end()).words)
    assert words[-6:] == ["/x.log", "9", "15", "-1", "0", "630a"]


def test_a_missing_file_still_ends_the_reader_unless_it_waits(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", FILE_READER, str(tmp_path / "no.log"), "0", "0", "0", "0"],
                          capture_output=True, timeout=30)
    assert done.returncode == NO_SUCH_FILE and b"no such file" in done.stderr
