"""Watch a server start: follow its log from a position until ready, crashed, or a timeout.

The log says how far it got (mtptui.ops.progress); a liveness check catches a server that dies without a
word, and a quiet log releases an error the parser holds back for its traceback.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Awaitable, Callable

from mtptui.ops.progress import StartupTracker
from mtptui.remote.errors import RemoteError
from mtptui.remote.follow import Backoff, ConnectionStatus
from mtptui.remote.logsource import LogChunk, LogPosition, Start
from mtptui.sglang.logparse import LogParser

POLL_S = 0.5
GRACE_S = 1.5  # after the process is gone, time for its last lines to arrive


@dataclass
class WatchOutcome:
    """How a start ended: ready, crashed or timeout (with ``reason``), or lost (the log could not be followed)."""

    status: str
    reason: str | None = None


class _Watch:
    def __init__(self, tracker: StartupTracker, on_log: Callable[[bytes], None] | None) -> None:
        self.tracker, self.on_log = tracker, on_log
        self.parser = LogParser()
        self.last_data = time.monotonic()
        self.failure: str | None = None

    def feed(self, data: bytes) -> None:
        if self.on_log is not None:
            self.on_log(data)
        self.last_data = time.monotonic()
        for event in self.parser.feed(data):
            self.tracker.apply(event)

    def flush(self) -> None:
        for event in self.parser.flush_pending([]):
            self.tracker.apply(event)


async def _read(session, watch: _Watch, position: LogPosition, start: Start, emit) -> None:
    follower = session.follower(start=start, position=position, backoff=Backoff(initial_s=0.5, cap_s=5.0),
                                wait_for_log=True)  # the new server may be the one that creates the log
    try:
        async for item in follower.events():
            if isinstance(item, LogChunk):
                watch.feed(item.data)
                if watch.tracker.settled:
                    return
            elif isinstance(item, ConnectionStatus) and item.state in ("reconnecting", "failed"):
                emit("connection", f"log {item}", {"state": item.state})
                if item.state == "failed":
                    watch.failure = f"cannot follow the log: {item.reason}"
                    return
    finally:
        await follower.stop()


async def _check(watch: _Watch, alive: Callable[[], Awaitable[bool]]) -> None:
    while not watch.tracker.settled:
        await asyncio.sleep(POLL_S)
        if watch.parser.pending is not None and time.monotonic() - watch.last_data > POLL_S:
            watch.flush()
        try:
            running = await alive()
        except RemoteError:
            continue
        if not running:
            await asyncio.sleep(GRACE_S)
            watch.flush()
            watch.tracker.crash("the server exited before it was ready")


async def watch_start(session, position: LogPosition, start: Start, alive: Callable[[], Awaitable[bool]],
                      timeout_s: float, emit, on_log: Callable[[bytes], None] | None = None) -> WatchOutcome:
    """Follow the log from ``position`` (or ``start``) until the server is ready, crashed, or ``timeout_s``."""
    tracker = StartupTracker(emit)
    watch = _Watch(tracker, on_log)
    tasks = [asyncio.ensure_future(_read(session, watch, position, start, emit)),
             asyncio.ensure_future(_check(watch, alive))]
    try:
        await asyncio.wait(tasks, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if tracker.state.phase == "ready":
        return WatchOutcome("ready")
    if tracker.state.phase == "crashed":
        return WatchOutcome("crashed", tracker.reason)
    failed = next((t.exception() for t in tasks if t.done() and not t.cancelled() and t.exception()), None)
    if watch.failure or failed is not None:
        return WatchOutcome("lost", watch.failure or f"cannot watch the start: {failed}")
    return WatchOutcome("timeout", f"not ready after {timeout_s:g} s (last phase: {tracker.state.phase})")
