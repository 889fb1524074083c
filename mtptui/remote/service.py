"""The service manager of a host: what runs the SGLang server (a systemd unit, or a hand-started process).

Use cases ask the manager, never which one it is: mtptui.remote.systemd.SystemdManager and
mtptui.remote.process.ProcessManager both are a ServiceManager. Each plans its own restart, both ways
(``plan_launch``, ``rollback_steps``), and says how its service stands in one vocabulary (``ServiceState``:
a phase every caller understands, and the manager's own words for people). Work that differs by manager (the
checks of its unit or its process, its journal) is handed to the manager, which runs its own part (``pick``,
mtptui.remote.service_work).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Protocol

from mtptui.remote.service_state import DOWN, ServicePhase, ServiceState
from mtptui.remote.service_work import ByManager, T, UnitView

if TYPE_CHECKING:
    from mtptui.remote.procinfo import ProcessInfo
    from mtptui.remote.process import ProcessManager
    from mtptui.remote.steps import LaunchRequest, PreviousRun, ServicePlan, ServiceStep
    from mtptui.remote.systemd import SystemdManager
    from mtptui.remote.unitfile import ConfiguredLaunch


class ServiceManager(Protocol):
    kind: str  # "systemd" or "process", as in the host file's server.manager (for labels, never for a switch)
    prefix: tuple[str, ...]  # what the manager's commands run under, e.g. ("sudo", "-n")
    inherits_login_environment: bool  # the server sees the login shell's environment (PYTHONPATH, ...)

    async def state(self) -> ServiceState:
        """How the service stands now."""
        ...

    async def server_process(self) -> ProcessInfo | None:
        """The process of the SGLang server the manager runs, or None when none runs."""
        ...

    async def describe(self) -> tuple[str, str]:
        """(what runs the server, its state's words) for a status line, e.g. ("sglang-qwen.service pid 42",
        "active")."""
        ...

    def service_label(self, pid: int | None) -> str:
        """What runs the server for a status line, e.g. "sglang-qwen.service (pid 42)" or "process pid 42"."""
        ...

    async def configured(self) -> ConfiguredLaunch | None:
        """What the host is configured to start (the unit, a launch command, the unit a hand-started server
        replaced), or None when nothing is configured."""
        ...

    async def plan_launch(self, request: LaunchRequest) -> ServicePlan:
        """The steps that run ``request.target`` instead of what runs now, and what a rollback goes back to."""
        ...

    async def current_run(self, unit_path: str | None) -> tuple[str | None, int | None]:
        """(the text of the file at ``unit_path``: None without one, the managed server's pid or None)."""
        ...

    async def started_pid(self, launch_output: str) -> int | None:
        """The pid of the server the restart's starting step just started (``launch_output``: what it printed)."""
        ...

    async def exited(self, pid: int | None) -> str | None:
        """None while the server just started (``pid``) runs, else why not, in one sentence; a RemoteError when
        the host gives no answer that says."""
        ...

    async def rollback_steps(self, previous: PreviousRun, new_pid: int | None,
                             changed: Collection[str]) -> list[ServiceStep]:
        """The commands that undo ``changed`` (the restart steps that ran or may have run), and only those."""
        ...


    async def restart_lock(self) -> str | None:
        """The host's restart lock file (beside the unit, or the pid file): what a restart or a tune holds."""
        ...

    def pick(self, work: ByManager[T]) -> T:
        """This manager's part of ``work``."""
        ...


__all__ = ["DOWN", "ByManager", "ServiceManager", "ServicePhase", "ServiceState", "UnitView"]


def _both_are_service_managers(systemd: SystemdManager, process: ProcessManager) -> list[ServiceManager]:
    """Never called: mypy checks here that both managers keep the protocol."""
    return [systemd, process]


def _systemd_is_a_unit_view(systemd: SystemdManager) -> UnitView:
    """Never called: mypy checks here that the systemd manager shows its unit to checks."""
    return systemd
