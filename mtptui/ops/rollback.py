"""The commands that undo the steps of a failed restart that ran, and only those."""

from __future__ import annotations

from typing import Collection

from mtptui.ops.restart import RestartPlan, Step
from mtptui.remote.procinfo import read_process
from mtptui.remote.systemd import SystemdManager


async def rollback_steps(session, plan: RestartPlan, new_pid: int | None, changed: Collection[str]) -> list[Step]:
    """Undo ``changed`` (the steps that ran or may have run).

    systemd: a written unit is written back and reloaded; a restarted unit is restarted again (or stopped when
    nothing ran before). A server outside the unit that was stopped first is not brought back. Process: the new
    server is stopped, and the previous command line relaunched if it was stopped.
    """
    manager, previous = session.manager, plan.previous
    if isinstance(manager, SystemdManager):
        steps = []
        if "write_unit" in changed:
            steps += [Step("write_unit", manager.write_command(previous.unit_path, previous.unit_text, None)),
                      Step("reload", manager.daemon_reload_command())]
        if "starting" in changed and previous.running:
            steps.append(Step("starting", manager.restart_command(), starts=True))
        elif "starting" in changed:
            steps.append(Step("stopping", manager.systemctl("stop", manager.unit, changes_host=True)))
        return steps
    steps = []
    if "starting" in changed and new_pid:  # launched with setsid: its process group is its pid, workers included
        info = await read_process(session.transport, new_pid)
        steps.append(Step("stopping", manager.stop_group_command(new_pid, info.pgid if info else new_pid)))
    if "stopping" in changed and previous.running and not await _still_runs(session, previous):
        steps.append(Step("starting", manager.launch_command(previous.argv, previous.env, previous.workdir),
                          starts=True))
    return steps


async def _still_runs(session, previous) -> bool:
    """A stop that failed may have left the previous server running: then it is not launched a second time."""
    return previous.process is not None and await read_process(session.transport, previous.process.pid) is not None
