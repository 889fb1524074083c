"""A restart's hold on its host: the host's restart lock, and getting the host back after a dropped connection.

``Link.reach()`` reconnects with backoff for up to ``reconnect_s``; ``retrying(read)`` reads again after a
reconnect; ``hold_lock()`` takes the lock again when a dropped connection released it on the host. A host that
stays away ends in ``StepFailed(unreachable=True)``: the restart reports it instead of guessing.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Awaitable, Callable, TypeVar

from mtptui.remote.errors import ConnectError, ConnectionLost, RemoteError
from mtptui.remote.follow import Backoff

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ops.progress import StepEmit
    from mtptui.ops.restart.plan import RestartPlan
    from mtptui.remote.hostlock import HostLock

T = TypeVar("T")

RECONNECT = Backoff(initial_s=0.5, cap_s=10.0)
READ_TRIES = 5


class StepFailed(Exception):
    """A step (or a read) did not complete. ``unreachable``: the host did not come back; ``retry``: it came back
    after the connection dropped during the step, which may be run again if that is safe."""

    def __init__(self, reason: str, unreachable: bool = False, retry: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.unreachable, self.retry = reason, unreachable, retry


def connection_trouble(exc: BaseException) -> bool:
    return isinstance(exc, (ConnectionLost, ConnectError))


def holder_name(profile: str) -> str:
    """Who takes the lock, as another operator will read it: user@machine, what, and this process."""
    import getpass
    import os
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "someone"
    return f"{user}@{socket.gethostname()} (mtptui restart with profile {profile}, pid {os.getpid()})"


class Link:
    """The session seen by one restart; ``emit(step, message, detail)`` reports the connection's ups and downs."""

    def __init__(self, session: HostSession, plan: RestartPlan, emit: StepEmit, reconnect_s: float,
                 held: HostLock | None = None) -> None:
        self.session, self.plan, self.emit, self.reconnect_s = session, plan, emit, reconnect_s
        self.lock: HostLock | None = held
        self.held = held is not None  # taken by the caller, who releases it

    async def take_lock(self) -> None:
        """The host's restart lock; HostLocked (a UserError: nothing was changed) when another restart has it."""
        if self.held:
            await self.hold_lock()
            return
        if self.plan.lock is None:
            return
        from mtptui.remote.hostlock import HostLock

        prefix = self.session.manager.prefix
        lock = HostLock(self.session.transport, self.plan.lock, holder_name(self.plan.profile), prefix)
        self.lock = lock
        await lock.acquire()

    async def hold_lock(self) -> None:
        """Before a change: the lock is held (taken again after a reconnect), else StepFailed."""
        if self.lock is None:
            return
        try:
            await self.retrying(self.lock.ensure)
        except RemoteError as exc:  # HostLocked: another restart took it while the connection was down
            raise StepFailed(str(exc)) from None

    async def release(self) -> None:
        if self.lock is not None and not self.held:
            await self.lock.release()

    async def reach(self) -> bool:
        """Reconnect with backoff for up to ``reconnect_s``; whether the host answers again."""
        deadline, attempt = time.monotonic() + self.reconnect_s, 0
        while True:
            try:
                await self.session.check()
                self.emit("connection", f"connected to {self.plan.host} again", {"state": "connected"})
                return True
            except RemoteError as exc:
                attempt += 1
                delay = RECONNECT.delay(attempt)
                if not getattr(exc, "retriable", False) or time.monotonic() + delay > deadline:
                    return False
                self.emit("connection", f"cannot reach {self.plan.host} ({exc}); trying again in {delay:g} s",
                          {"state": "reconnecting"})
            await asyncio.sleep(delay)

    async def retrying(self, read: Callable[[], Awaitable[T]]) -> T:
        """``await read()``, again after a reconnect when the connection drops; StepFailed if the host stays away."""
        for _ in range(READ_TRIES):
            try:
                return await read()
            except RemoteError as exc:
                if not connection_trouble(exc):
                    raise
                failure = exc
                if not await self.reach():
                    break
        raise StepFailed(f"{failure}; the host did not come back within {self.reconnect_s:g} s", unreachable=True)
