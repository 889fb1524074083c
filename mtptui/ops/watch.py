"""Watch a server start: follow its log from a position until ready, crashed, or a timeout.

The log says how far it got (mtptui.ops.progress); the manager's liveness check (``exited``) catches a server
that dies without a word, or one that systemd restarts by itself (``Restart=``), and a quiet log releases an
error the parser holds back for its traceback. A dropped connection is not the server's failure: the log
follower reconnects with backoff for the whole watch and resumes where it was, a liveness check that cannot
reach the host says nothing, and a watch that ends while the host is away ends ``unreachable``, with where it
stood, so it can go on (``watch=``) once the host is back.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Literal, Sequence

from mtptui.ops.progress import StartupTracker, StepEmit
from mtptui.remote.errors import ConnectError, ConnectionLost, RemoteError
from mtptui.remote.follow import Backoff, ConnectionStatus
from mtptui.remote.logsource import FileLog, FilePosition, JournalDecoder, LogChunk, LogPosition, Start
from mtptui.remote.shell import Command
from mtptui.engines.registry import launches

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession

POLL_S = 0.5
GRACE_S = 1.5  # after the process is gone, time for its last lines to arrive
GRACE_STEP_S = 0.05  # how often the grace looks whether those lines settled the start


WatchStatus = Literal["ready", "crashed", "timeout", "lost", "unreachable", "failed"]  # failed: a step did not complete
Exited = Callable[[], Awaitable["str | None"]]  # None while the started server runs, else why not (the manager's)


@dataclass
class WatchOutcome:
    """How a start ended: ready, crashed or timeout (with ``reason``), lost (the log could not be followed), or
    unreachable (the host could not be reached when the time was up); ``watch`` is where it stood."""

    status: WatchStatus
    reason: str | None = None
    watch: Watch | None = None


class Watch:
    """One start being watched: its parser and tracker, the log position reached, and whether the host answers."""

    def __init__(self, emit: StepEmit, on_log: Callable[[bytes], None] | None, position: LogPosition,
                 start: Start, engine: str | None = None) -> None:
        parser, state = launches(engine).watch()  # the engine's log: its parser and its phases
        self.tracker, self.on_log = StartupTracker(emit, state), on_log
        self.parser: Any = parser
        self.last_data = time.monotonic()
        self.failure: str | None = None
        self.position, self.start = position, start
        self.unreachable: str | None = None  # why the host did not answer the last check; None when it did

    def feed(self, data: bytes) -> None:
        if self.on_log is not None:
            self.on_log(data)
        self.last_data = time.monotonic()
        self.unreachable = None
        for event in self.parser.feed(data):
            self.tracker.apply(event)

    def flush(self) -> None:
        for event in self.parser.flush_pending([]):
            self.tracker.apply(event)


async def log_position(session: HostSession) -> tuple[LogPosition, Start]:
    """Where the log ends now, so a watch sees only what the new start writes."""
    source = session.log_source
    if isinstance(source, FileLog):
        result = await session.transport.run(Command.of(["stat", "-c", "%i %s", "--", source.path], "stat the log"))
        inode, _, size = result.out.strip().partition(" ")
        if result.ok and inode.isdigit() and size.isdigit():
            return FilePosition(int(inode), int(size)), Start.end()
        return None, Start.beginning()
    result = await session.transport.run(source.last_entry())
    if result.exit_status is None:  # not an answer: the connection went away while it ran
        raise ConnectionLost(f"lost the connection to {session.transport.label} while reading the journal")
    chunks = JournalDecoder().feed(result.stdout + b"\n") if result.ok else []
    return (chunks[-1].position, Start.end()) if chunks else (None, Start.beginning())


async def _read(session: HostSession, watch: Watch, emit: StepEmit) -> None:
    follower = session.follower(start=watch.start, position=watch.position, wait_for_log=True,  # the new server
                                backoff=Backoff(initial_s=0.5, cap_s=5.0))  # may be the one that creates the log
    try:
        async for item in follower.events():
            if isinstance(item, LogChunk):
                watch.position = item.position
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


def _release_quiet_error(watch: Watch) -> None:
    """An error the parser holds back for its traceback is released once the log has been quiet for POLL_S."""
    if watch.parser.pending is not None and time.monotonic() - watch.last_data > POLL_S:
        watch.flush()


async def _grace(watch: Watch) -> None:
    """Once the process is gone: GRACE_S for its last lines to arrive, or less when they settle the start (its
    crash line, released after POLL_S of quiet as while it ran)."""
    deadline = time.monotonic() + GRACE_S
    while not watch.tracker.settled and time.monotonic() < deadline:
        await asyncio.sleep(GRACE_STEP_S)
        _release_quiet_error(watch)


async def _check(watch: Watch, exited: Exited) -> None:
    while not watch.tracker.settled:
        await asyncio.sleep(POLL_S)
        _release_quiet_error(watch)
        try:
            why = await exited()
        except (ConnectionLost, ConnectError) as exc:
            watch.unreachable = str(exc)
            continue
        except RemoteError:  # an answer that says nothing about the server
            continue
        watch.unreachable = None
        if why is not None:
            await _grace(watch)
            watch.flush()
            watch.tracker.crash(why)  # the log's own crash line, when it had one, stays the reason


async def watch_start(session: HostSession, position: LogPosition, start: Start, exited: Exited,
                      timeout_s: float, emit: StepEmit, on_log: Callable[[bytes], None] | None = None,
                      watch: Watch | None = None) -> WatchOutcome:
    """Follow the log from ``position`` (or ``start``) until the server is ready, crashed, or ``timeout_s``;
    with ``watch``, go on from where that watch stood."""
    watch = watch or Watch(emit, on_log, position, start, session.host.engine)
    tasks = [asyncio.ensure_future(_read(session, watch, emit)), asyncio.ensure_future(_check(watch, exited))]
    try:
        await asyncio.wait(tasks, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return _outcome(watch, tasks, timeout_s)


def _outcome(watch: Watch, tasks: Sequence[asyncio.Future[None]], timeout_s: float) -> WatchOutcome:
    tracker = watch.tracker
    if tracker.state.phase == "ready":
        return WatchOutcome("ready", watch=watch)
    if tracker.state.phase == "crashed":
        return WatchOutcome("crashed", tracker.reason, watch)
    failed = next((t.exception() for t in tasks if t.done() and not t.cancelled() and t.exception()), None)
    if watch.failure or failed is not None:
        return WatchOutcome("lost", watch.failure or f"cannot watch the start: {failed}", watch)
    if watch.unreachable:
        return WatchOutcome("unreachable", f"the host could not be reached when the time was up: "
                                           f"{watch.unreachable}", watch)
    return WatchOutcome("timeout", f"not ready after {timeout_s:g} s (last phase: {tracker.state.phase})", watch)
