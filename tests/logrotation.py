"""A log writer that rotates its file the way logrotate does, a follower that tells the writer when it reads, and
the count of what it received (tests/test_lab_rotation.py, benchmarks/rotation_bench.py).

    writer = RotatingWriter(path, lines=12_000, rate=2_000, rotations=6, before_rotation=drop_connections)
    writer.run()                   # in a thread: numbered lines at `rate` lines/s, `rotations` rotations
    lost, duplicated = count(received_bytes, writer.lines)

Rotations alternate between logrotate's two ways: ``copytruncate`` (copy the file to ``NAME.1``, truncate it in
place; the writer keeps its O_APPEND descriptor) and ``create`` (rename it to ``NAME.1``, the writer reopens
``NAME``, as after logrotate's postrotate signal); ``ways`` may name others: ``rename-kept`` (rename, a new empty
``NAME``, and the writer keeps writing the renamed file, as a nohup server does) and ``reopen`` (the writer
opens ``NAME`` again, as the restarted server). Older copies shift to ``NAME.2`` ... ``NAME.KEEP`` first.
The writer rotates between two of its own lines, so logrotate's own copytruncate window (a line written between
the copy and the truncation is lost by design) is not what gets measured: every line lost is the reader's.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import Callable

from mtptui.remote.follow import ConnectionStatus, LogFollower

LINE = b"[2026-05-11 23:49:07 TP0] Decode batch, line %08d, #running-req: 1, gen throughput (token/s): 50.00\n"


class RotatingWriter:
    """Writes ``lines`` numbered lines at ``rate`` lines/s with ``rotations`` evenly spread rotations."""

    def __init__(self, path: Path, *, lines: int, rate: float, rotations: int, keep: int = 4,
                 before_rotation: Callable[[int, str], None] | None = None,
                 ways: tuple[str, ...] = ("copytruncate", "create")) -> None:
        self.path, self.lines, self.rate, self.keep, self.ways = Path(path), lines, rate, keep, ways
        self.at = {lines * (k + 1) // (rotations + 1): k for k in range(rotations)}  # line number → rotation
        self.before_rotation = before_rotation or (lambda number, how: None)
        self.done: list[str] = []

    def run(self) -> None:
        handle = open(self.path, "ab", buffering=0)
        start = time.monotonic()
        try:
            for number in range(self.lines):
                if number in self.at:
                    handle = self._rotate(handle, self.at[number])
                handle.write(LINE % number)
                delay = start + (number + 1) / self.rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
        finally:
            handle.close()

    def _rotate(self, handle, index: int):
        how = self.ways[index % len(self.ways)]
        self.before_rotation(index, how)
        if how == "reopen":  # the server restarted: it writes the file at the path from now on
            handle.close()
            handle = open(self.path, "ab", buffering=0)
        elif how == "copytruncate":
            self._shift()
            shutil.copyfile(self.path, self._old(1))
            os.truncate(self.path, 0)
        else:
            self._shift()
            os.rename(self.path, self._old(1))
            if how == "create":
                handle.close()
                handle = open(self.path, "ab", buffering=0)
            else:  # "rename-kept": logrotate's create, and a nohup server that keeps writing the renamed file
                self.path.touch()
        self.done.append(how)
        return handle

    def _old(self, k: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{k}")

    def _shift(self) -> None:
        self._old(self.keep).unlink(missing_ok=True)
        for k in range(self.keep - 1, 0, -1):
            if self._old(k).exists():
                os.rename(self._old(k), self._old(k + 1))


def count(received: bytes, lines: int) -> tuple[int, int]:
    """(lines lost, lines received more than once) of lines 0..lines-1 in what a follower received."""
    seen: dict[int, int] = {}
    for line in received.split(b"\n"):
        if b", line " in line:
            number = int(line.split(b", line ")[1][:8])
            seen[number] = seen.get(number, 0) + 1
    return sum(1 for n in range(lines) if n not in seen), sum(c - 1 for c in seen.values())


class Link:
    """What the follower's connection is doing, as the writer's thread needs to know it."""

    def __init__(self) -> None:
        self.connected = 0  # "connected" statuses so far
        self.flowing = threading.Event()  # data arrived since the last status

    def wait_reading_again(self, after: int, timeout: float = 60) -> None:
        """Until a connection newer than the ``after``-th has delivered data."""
        deadline = time.monotonic() + timeout
        while not (self.connected > after and self.flowing.is_set()) and time.monotonic() < deadline:
            time.sleep(0.01)


async def follow_until(follower: LogFollower, last: bytes, link: Link):
    """Everything the follower delivers until it ends with ``last``, and its statuses; ``link`` kept current."""
    received, statuses = bytearray(), []
    async for item in follower.events():
        if isinstance(item, ConnectionStatus):
            statuses.append(item)
            link.flowing.clear()
            link.connected += item.state == "connected"
            continue
        received += item.data
        link.flowing.set()
        if received.endswith(last):
            await follower.stop()
    return bytes(received), statuses
