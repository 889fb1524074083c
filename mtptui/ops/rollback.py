"""The commands that take a host back to what ran before a failed restart."""

from __future__ import annotations

from mtptui.ops.restart import RestartPlan, Step
from mtptui.remote.procinfo import read_process
from mtptui.remote.systemd import SystemdManager


async def rollback_steps(session, plan: RestartPlan, new_pid: int | None) -> list[Step]:
    """systemd: the previous unit back, daemon-reload, restart (or stop); process: stop the new, relaunch the old."""
    manager = session.manager
    previous = plan.previous
    if isinstance(manager, SystemdManager):
        steps = [Step("write_unit", manager.write_command(previous.unit_path, previous.unit_text, None)),
                 Step("reload", manager.daemon_reload_command())]
        if previous.running:
            return steps + [Step("starting", manager.restart_command(), starts=True)]
        return steps + [Step("stopping", manager.systemctl("stop", manager.unit, changes_host=True))]
    steps = []
    if new_pid:  # launched with setsid: its process group is its pid, workers included even if it is gone
        info = await read_process(session.transport, new_pid)
        steps.append(Step("stopping", manager.stop_group_command(new_pid, info.pgid if info else new_pid)))
    if previous.running:
        steps.append(Step("starting", manager.launch_command(previous.argv, previous.env, previous.workdir),
                          starts=True))
    return steps
