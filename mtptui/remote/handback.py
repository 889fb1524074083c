"""The hand-back: a hand-started server returned to the systemd unit it replaced (the mission's last step).

``HandBackManager`` is a ServiceManager made of the two managers of one host: the process manager of the
hand-started server (the host file's) and the systemd manager of the unit it replaced (``server.unit``). Its plan
stops the hand-started process group, then runs the systemd manager's own steps (back up and write the unit,
daemon-reload, reset-failed, start) and enables the unit once the server is ready. Its rollback undoes only what
ran: stop the unit, write the previous unit back, daemon-reload, and relaunch the hand-started command line.
Until its rollback is planned it speaks of the unit; from then on, of the relaunched process (``rolling_back``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Collection

from mtptui.errors import UserError
from mtptui.remote.procinfo import read_process
from mtptui.remote.service_state import DOWN
from mtptui.remote.shell import OR, Command
from mtptui.remote.steps import PreviousRun, ServiceStep, StopPolicy

if TYPE_CHECKING:
    from mtptui.remote.service_work import ByManager, T
    from mtptui.remote.procinfo import ProcessInfo
    from mtptui.remote.process import ProcessManager
    from mtptui.remote.service_state import ServiceState
    from mtptui.remote.steps import LaunchRequest, ServicePlan
    from mtptui.remote.systemd import SystemdManager
    from mtptui.remote.unitfile import ConfiguredLaunch


class HandBackManager:
    """The hand-started server (``process``) handed back to its unit (``unit``)."""

    kind = "process → systemd"
    prefix: tuple[str, ...] = ()  # the restart lock is the process manager's (beside its pid file), the login user's
    inherits_login_environment = False  # the new server runs in the unit, with the unit's environment

    def __init__(self, unit: SystemdManager, process: ProcessManager) -> None:
        self.unit, self.process = unit, process
        self.rolling_back = False  # set once the rollback is planned: the hand-started launch comes back

    @property
    def unit_name(self) -> str:
        return self.unit.unit

    async def state(self) -> ServiceState:
        """The unit's state while it runs (or starts), else the hand-started server's when that one runs."""
        unit = await self.unit.state()
        if unit.phase not in DOWN:
            return unit
        process = await self.process.state()
        return process if process.phase == "running" else unit

    async def server_process(self) -> ProcessInfo | None:
        pid = await self.unit.main_pid()
        info = await read_process(self.unit.transport, pid, await self.unit.resolve_prefix()) if pid else None
        return info or await self.process.find()

    async def describe(self) -> tuple[str, str]:
        unit = await self.unit.state()
        return await (self.unit.describe() if unit.phase not in DOWN else self.process.describe())

    def service_label(self, pid: int | None) -> str:
        return self.unit.service_label(pid)

    async def configured(self) -> ConfiguredLaunch:
        return await self.unit.configured()

    async def current_run(self, unit_path: str | None) -> tuple[str | None, int | None]:
        text, main = await self.unit.current_run(unit_path)
        if main:
            return text, main
        info = await self.process.find()
        return text, info.pid if info else None

    async def started_pid(self, launch_output: str) -> int | None:
        return await (self.process if self.rolling_back else self.unit).started_pid(launch_output)

    async def exited(self, pid: int | None) -> str | None:
        return await (self.process if self.rolling_back else self.unit).exited(pid)

    async def restart_lock(self) -> str | None:
        return await self.process.restart_lock()

    def pick(self, work: ByManager[T]) -> T:
        return (self.process if self.rolling_back else self.unit).pick(work)

    async def plan_launch(self, request: LaunchRequest) -> ServicePlan:
        """Stop the hand-started server, then the unit's own restart with the target; enable once ready."""
        await self.refuse_unless_stopped()
        info = request.running
        service = await self.unit.plan_launch(replace(request, running=None, enable=False))
        steps = [ServiceStep("stopping", self.process.stop_command(info))] if info else []
        previous = replace(service.previous, running=info is not None, process=info,
                           argv=list(info.argv) if info else [], env=dict(request.running_env),
                           workdir=self.process.config.workdir or (info.cwd if info else None),
                           pid=info.pid if info else None)
        enable = [service.enable_offer] if service.enable_offer else []
        timeout_s = self.process.stop_timeout_s
        steps += [self._reset_failed() if step.step == "reset_failed" else step for step in service.steps]
        return replace(service, steps=steps, previous=previous, finish=enable, enable_offer=None,
                       rollback=self.rollback_summary(previous), lock=self.process.lock_path(),
                       stop=StopPolicy(timeout_s, f"KILL {timeout_s:g} s after TERM"),
                       notes=[*self._notes(info, bool(enable)), *service.notes])

    async def refuse_unless_stopped(self) -> None:
        """A unit systemd does not know, or one that runs already, has nothing to take back: one sentence."""
        state = await self.unit.state()
        where = self.unit.transport.label
        if state.facts.get("LoadState", "").strip() == "not-found":
            raise UserError(f"there is no systemd unit {self.unit_name} on {where} to hand the server back to "
                            f"(systemd does not know it; set [server] unit to the unit this server replaced)")
        if state.phase not in DOWN:
            raise UserError(f"{self.unit_name} is {state.words} on {where}: the server runs from its unit already, "
                            f"there is nothing to hand back")

    def _notes(self, info: ProcessInfo | None, enables: bool) -> list[str]:
        ran = (f"pid {info.pid} (started by hand) is stopped first" if info else
               "no hand-started server runs now")
        enabled = "and is enabled once ready (it starts at boot)" if enables else "(it is enabled already)"
        return [f"hand-back to {self.unit_name}: {ran}; the unit runs the profile {enabled}"]

    def rollback_summary(self, previous: PreviousRun) -> str:
        again = "relaunch the hand-started command line" if previous.running else "leave it stopped"
        return (f"on crash or timeout: stop {self.unit_name}, write the previous {previous.unit_path} back, "
                f"daemon-reload, and {again} (a failure undoes only the steps that ran)")

    async def rollback_steps(self, previous: PreviousRun, new_pid: int | None,
                             changed: Collection[str]) -> list[ServiceStep]:
        """Stop the unit, write its previous file back, relaunch the hand-started server; only what ran."""
        self.rolling_back = True
        steps = []
        if "starting" in changed:
            steps += [ServiceStep("stopping", self.unit.systemctl("stop", self.unit_name, changes_host=True)),
                      self._reset_failed()]
        if "write_unit" in changed:
            steps += self.unit.write_back_steps(previous)
        if "stopping" in changed and previous.running and not await self._still_runs(previous):
            steps.append(ServiceStep("starting", self.process.launch_command(previous.argv, previous.env,
                                                                             previous.workdir), starts=True))
        return steps

    def _reset_failed(self) -> ServiceStep:
        """reset-failed where the unit may not be loaded: systemd unloads a stopped unit nothing refers to, and
        reset-failed of an unloaded unit fails though there is no failed state to forget."""
        command = self.unit.reset_failed_command()
        return ServiceStep("reset_failed", Command.of([*command.words, OR, "true"], command.what, changes_host=True))

    async def _still_runs(self, previous: PreviousRun) -> bool:
        """A stop that failed may have left the hand-started server running: it is not launched a second time."""
        return previous.process is not None and await self.process.alive(previous.process.pid)


def _keeps_the_protocol(manager: HandBackManager) -> list[object]:
    """Never called: mypy checks here that the hand-back keeps the ServiceManager protocol."""
    from mtptui.remote.service import ServiceManager

    checked: list[ServiceManager] = [manager]
    return list(checked)
