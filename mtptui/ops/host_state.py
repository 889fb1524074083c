"""The host as it stands after a restart: which unit is on disk, and which launch runs.

Read from the host when a restart ends, never inferred from what the restart meant to do: a report that says
"the previous unit is on disk and pid 42 runs the previous launch" has just looked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from mtptui.remote.procinfo import read_process
from mtptui.remote.service_state import ServiceState

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ops.restart.plan import RestartPlan

Match = Literal["new", "previous", "other"]

UNITS = {"new": "the new unit", "previous": "the previous unit",
         "other": "a unit that is neither the previous nor the new one"}
LAUNCHES = {"new": "the new profile", "previous": "the previous launch", "other": "another command line"}


@dataclass(frozen=True)
class EndState:
    """``unit``: new, previous or other (None on a process-managed host); ``launch`` likewise (None: nothing runs);
    ``service`` the manager's state read at the end (systemd: `systemctl show`'s ActiveState, SubState, Result,
    ExecMainStatus, NRestarts, MainPID)."""

    unit: Match | None
    unit_path: str | None
    pid: int | None
    launch: Match | None
    service: ServiceState | None = None

    def __str__(self) -> str:
        runs = f"pid {self.pid} runs {LAUNCHES[self.launch]}" if self.pid and self.launch else "no server runs"
        return runs if self.unit is None else f"{UNITS[self.unit]} is on disk and {runs}"

    def to_json(self) -> dict[str, Any]:
        service = self.service
        return {"unit": self.unit, "unit_path": self.unit_path, "pid": self.pid, "launch": self.launch,
                "text": str(self), "service": {"phase": service.phase, "words": service.words,
                                               "properties": dict(service.facts)} if service else None}


def _which(found: object, new: object, previous: object) -> Match:
    return "new" if found == new else "previous" if found == previous else "other"


async def read_end_state(session: HostSession, plan: RestartPlan) -> EndState:
    """Look at the host: the unit file on disk (when the plan rewrites one) and the server that runs, each matched
    to the plan."""
    manager = session.manager
    text, pid = await manager.current_run(plan.previous.unit_path if plan.new_unit else None)
    service = await manager.state()
    info = await read_process(session.transport, pid, manager.prefix) if pid else None
    if plan.new_unit is not None:
        name = plan.previous.unit_name
        launches = (_exec_argv(plan.new_unit, name), _exec_argv(plan.previous.unit_text, name))
        unit = _which(text, plan.new_unit, plan.previous.unit_text)
    else:
        from mtptui.engines.registry import launches as engine_launches

        launches, unit = (engine_launches(session.host.engine).words(plan.target), plan.previous.argv), None
    launch = _which(info.argv, *launches) if info is not None else None
    if launch == "other" and info is not None and plan.previous.pid is not None and \
            (info.pid == plan.previous.pid or info.argv == plan.previous.argv):
        launch = "previous"  # the same process (or command line: a hand-back relaunched) as before
    return EndState(unit, plan.previous.unit_path, info.pid if info else None, launch, service)


def _exec_argv(text: str | None, name: str | None) -> list[str] | None:
    from mtptui.engines.sglang.unit import read_unit

    return read_unit(text, name=name).exec_argv if text else None
