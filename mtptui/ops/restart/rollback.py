"""The commands that undo the steps of a failed restart that ran, and only those."""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection

from mtptui.ops.restart.plan import RestartPlan, Step

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession


async def rollback_steps(session: HostSession, plan: RestartPlan, new_pid: int | None,
                         changed: Collection[str]) -> list[Step]:
    """Undo ``changed`` (the steps that ran or may have run), as the host's service manager says
    (mtptui.remote.systemd / process: ``rollback_steps``)."""
    return await session.manager.rollback_steps(plan.previous, new_pid, changed)
