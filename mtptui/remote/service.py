"""The service manager of a host: what runs the SGLang server (a systemd unit, or a hand-started process).

Use cases ask the manager, not ``if systemd / else process``: mtptui.remote.systemd.SystemdManager and
mtptui.remote.process.ProcessManager both are a ServiceManager.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Protocol

from mtptui.remote.steps import PreviousRun, ServiceStep

if TYPE_CHECKING:
    from mtptui.remote.procinfo import ProcessInfo
    from mtptui.remote.process import ProcessManager
    from mtptui.remote.systemd import SystemdManager


class ServiceManager(Protocol):
    kind: str  # "systemd" or "process", as in the host file's server.manager
    prefix: tuple[str, ...]  # what the manager's commands run under, e.g. ("sudo", "-n")
    inherits_login_environment: bool  # the server sees the login shell's environment (PYTHONPATH, ...)

    async def state(self) -> str:
        """The service's state in the manager's words: systemd's is-active, or "running" / "not running"."""
        ...

    async def server_process(self) -> ProcessInfo | None:
        """The process of the SGLang server the manager runs, or None when none runs."""
        ...

    async def describe(self) -> tuple[str, str]:
        """(what runs the server, its state) for a status line, e.g. ("sglang-qwen.service pid 42", "active")."""
        ...

    def service_label(self, pid: int | None) -> str:
        """What runs the server for a status line, e.g. "sglang-qwen.service (pid 42)" or "process pid 42"."""
        ...

    def rollback_summary(self, previous: PreviousRun) -> str:
        """What a failed restart will undo, in one sentence."""
        ...

    async def current_run(self, unit_path: str | None) -> tuple[str | None, int | None]:
        """(the unit file's text at ``unit_path``: None without a unit, the managed server's pid or None)."""
        ...

    async def started_pid(self, launch_output: str) -> int | None:
        """The pid of the server the restart's starting step just started (``launch_output``: what it printed)."""
        ...

    async def still_running(self, pid: int | None) -> bool:
        """Whether the server just started (``pid``) still runs; a RemoteError when the host gives no answer."""
        ...

    async def rollback_steps(self, previous: PreviousRun, new_pid: int | None,
                             changed: Collection[str]) -> list[ServiceStep]:
        """The commands that undo ``changed`` (the restart steps that ran or may have run), and only those."""
        ...


def _both_are_service_managers(systemd: SystemdManager, process: ProcessManager) -> list[ServiceManager]:
    """Never called: mypy checks here that both managers keep the protocol."""
    return [systemd, process]
