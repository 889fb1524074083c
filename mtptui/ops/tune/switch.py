"""Switching engines in a tune: only one engine's server runs on the GPUs at a time, so before another engine's
arm starts, the server of the engine that ran is stopped (its unit, or its hand-started process group) and seen
gone from the host. The manager picks its own way to stop (``ServiceManager.pick``)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from mtptui.errors import UserError
from mtptui.remote.shell import Command

if TYPE_CHECKING:
    from mtptui.config.models import ProcessServer
    from mtptui.ops.connect import HostSession
    from mtptui.remote.procinfo import ProcessInfo
    from mtptui.remote.service_work import UnitView

STOP_S = 120.0  # how long a stopped server may take to be gone (vLLM's engine core drains and exits)


class _Stop:
    """The command that stops the server the manager runs (``info``: its process)."""

    def __init__(self, info: ProcessInfo, prefix: tuple[str, ...]) -> None:
        self.info, self.prefix = info, prefix

    def unit(self, unit: UnitView) -> Command:
        return unit.systemctl("stop", unit.unit, what=f"stop {unit.unit}", changes_host=True)

    def process(self, config: ProcessServer) -> Command:
        from mtptui.remote.process import STOP_TIMEOUT_S, stop_group_command

        return stop_group_command(self.info.pid, self.info.pgid, STOP_TIMEOUT_S, self.prefix)


async def stop_engine(session: HostSession, timeout_s: float = STOP_S) -> str | None:
    """Stop the server of ``session``'s engine if one runs, and wait until the host shows none; what was done,
    in one sentence (None: nothing ran). A UserError when it will not stop."""
    from mtptui.engines.registry import engine

    manager, label = session.manager, engine(session.host.engine).label
    info = await manager.server_process()
    if info is None:
        return None
    (await session.transport.run(manager.pick(_Stop(info, manager.prefix)))).check(f"stopping the {label} server")
    deadline = time.monotonic() + timeout_s
    while (now := await manager.server_process()) is not None:
        if time.monotonic() > deadline:
            raise UserError(f"the {label} server (pid {now.pid}) still runs {timeout_s:.0f} s after it was stopped")
        await asyncio.sleep(1.0)
    return f"the {label} server (pid {info.pid}) is stopped"
