"""The systemd manager's restart, planned: rewrite the file holding ExecStart= (the unit, or the drop-in
``systemctl edit`` made), backed up first; daemon-reload; reset-failed; restart; enable once ready when asked.

The unit's own Environment= variables stay unless the operator drops them (mtptui.remote.unitenv); a drop-in
gets only what it changes. EnvironmentFile= variables stay where they are: systemd reads them after
Environment=, so a profile value for one of them would not win, and the plan says so. A SGLang server that runs
outside the unit is stopped first. Reading the host is all this does.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Literal, Protocol

from mtptui.errors import UserError
from mtptui.remote.process import STOP_TIMEOUT_S, stop_group_command
from mtptui.remote.shell import OR, Command
from mtptui.remote.steps import PreviousRun, ServicePlan, ServiceStep, StopPolicy
from mtptui.remote.systemd_state import PHASES, number, timespan_s
from mtptui.remote.unitenv import merge_env, with_files
from mtptui.secrets import mask_flagset

if TYPE_CHECKING:
    from mtptui.remote.steps import LaunchRequest
    from mtptui.remote.unitfile import UnitFile
    from mtptui.engines.sglang.flags.flagset import FlagSet


class UnitManager(Protocol):
    """What the plan asks of the systemd manager (mtptui.remote.systemd.SystemdManager)."""

    unit: str
    prefix: tuple[str, ...]

    async def read(self) -> UnitFile: ...

    async def show(self, *properties: str) -> dict[str, str]: ...

    def write_command(self, path: str, text: str, backup: str | None) -> Command: ...

    def daemon_reload_command(self) -> Command: ...

    def reset_failed_command(self) -> Command: ...

    def restart_command(self) -> Command: ...

    def enable_command(self) -> Command: ...

    def rollback_summary(self, previous: PreviousRun) -> str: ...

    def backup_for(self, path: str, stamp: str) -> str: ...

    def lock_for(self, path: str) -> str: ...


PLAN_PROPERTIES = ("MainPID", "ActiveState", "UnitFileState", "DropInPaths", "NeedDaemonReload", "TimeoutStopUSec",
                   "KillMode")
ENABLED = frozenset({"enabled", "enabled-runtime", "static", "indirect", "generated", "alias", "linked",
                     "linked-runtime", "transient"})  # started at boot already, or not something `enable` changes


def _target(request: LaunchRequest, unit: UnitFile) -> FlagSet:
    """The launch to write: the profile's, with the unit's interpreter unless the profile names one."""
    model = request.launches
    if request.keep_interpreter:
        moved: FlagSet = model.with_entry(request.target, model.unit(unit.parsed(), request.target.version).entry)
        return moved
    return copy.copy(request.target)


def _holder_env(unit: UnitFile, holder: str, merged: dict[str, str], drop: frozenset[str]) -> dict[str, str]:
    """What the file holding ExecStart= must set so the unit's environment is ``merged``: all of it in the unit
    file itself; in a drop-in only what the files before it do not set already."""
    before = unit.environment_before(holder)
    outside = sorted(name for name in drop if name in before)
    if outside:
        raise UserError(f"cannot drop {outside[0]}: it is set in a file before {holder}, which mtptui does not "
                        f"rewrite; remove it there")
    own = unit.parsed(dict(unit.files())[holder]).environment
    return {k: v for k, v in merged.items() if k in own or before.get(k) != v}


def _overridden(unit: UnitFile, target: FlagSet) -> list[str]:
    files = unit.file_environment()
    return [f"{name} is set by EnvironmentFile={files[name][1]} too, which systemd reads after Environment=: the "
            f"server gets that file's value, not the profile's (edit the file)"
            for name in sorted(target.env) if name in files and files[name][0] != target.env[name]]


def _steps(manager: UnitManager, request: LaunchRequest, main_pid: int | None, holder: str, text: str,
           backup: str) -> list[ServiceStep]:
    stray = request.running if request.running and request.running.pid != main_pid else None
    steps = ([ServiceStep("stopping", stop_group_command(stray.pid, stray.pgid, STOP_TIMEOUT_S, manager.prefix))]
             if stray else [])
    return steps + [ServiceStep("write_unit", manager.write_command(holder, text, backup), atomic=True),
                    ServiceStep("reload", manager.daemon_reload_command()),
                    _reset_failed(manager, main_pid),
                    ServiceStep("starting", manager.restart_command(), starts=True)]


def _reset_failed(manager: UnitManager, main_pid: int | None) -> ServiceStep:
    """reset-failed; of a unit that does not run, whatever it says: systemd unloads a stopped unit nothing refers
    to (a second engine's unit a tune starts), and reset-failed of an unloaded unit fails with no state to forget."""
    command = manager.reset_failed_command()
    if main_pid is not None:
        return ServiceStep("reset_failed", command)
    return ServiceStep("reset_failed", Command.of([*command.words, OR, "true"], command.what, changes_host=True))


def _notes(manager: UnitManager, request: LaunchRequest, unit: UnitFile, holder: str,
           props: dict[str, str], main_pid: int | None) -> list[str]:
    notes = []
    if request.running and request.running.pid != main_pid:
        notes.append(f"pid {request.running.pid} runs SGLang outside {manager.unit}: it is stopped first, and a "
                     f"rollback restores the unit, not that server")
    if holder != unit.path:
        notes.append(f"{manager.unit}'s ExecStart= comes from the drop-in {holder}: that is the file rewritten")
    if props.get("NeedDaemonReload", "").strip() == "yes":
        notes.append(f"{manager.unit} changed on disk since systemd loaded it: what runs may not be what its files "
                     f"say (the restart's daemon-reload loads them)")
    return notes


def _stop_policy(timeout: str, kill_mode: str) -> StopPolicy:
    """systemd's stop: TERM to the whole cgroup (control-group) or to the main process (mixed, process)."""
    term_to: Literal["group", "main", ""] = ("group" if kill_mode == "control-group" else
                                            "main" if kill_mode in ("mixed", "process") else "")
    return StopPolicy(timespan_s(timeout), f"KillMode={kill_mode}, TimeoutStopSec={timeout}", term_to)


async def plan_unit_launch(manager: UnitManager, request: LaunchRequest) -> ServicePlan:
    """Rewrite the unit's launch (backed up first), daemon-reload, reset-failed, restart; enable once ready."""
    from mtptui.engines.sglang.unit import read_unit

    configured = request.configured
    unit = configured.unit if configured is not None and configured.unit is not None else await manager.read()
    holder, holder_text = unit.exec_holder()
    target = _target(request, unit)
    target.env, changes = merge_env(unit.parsed().environment, target.env, request.drop_env)
    written = copy.copy(target)
    written.env = _holder_env(unit, holder, target.env, request.drop_env)
    parsed = read_unit(holder_text, name=manager.unit)
    props = await manager.show(*PLAN_PROPERTIES)
    main_pid = number(props, "MainPID") or None
    running = main_pid is not None or PHASES.get(props.get("ActiveState", "").strip()) in ("running", "starting")
    previous = PreviousRun(running, unit_path=holder, unit_text=holder_text, pid=main_pid, unit_name=manager.unit)
    backup = manager.backup_for(holder, request.stamp)
    new_text = request.launches.write_unit(parsed, written)
    enable = ServiceStep("enabled", manager.enable_command())
    timeout = props.get("TimeoutStopUSec", "").strip() or "1min 30s"
    kill_mode = props.get("KillMode", "").strip() or "control-group"
    notes = _notes(manager, request, unit, holder, props, main_pid) + _overridden(unit, target)
    return ServicePlan(
        target, _steps(manager, request, main_pid, holder, new_text, backup), previous,
        manager.rollback_summary(previous), _stop_policy(timeout, kill_mode),
        finish=[enable] if request.enable else [],
        enable_offer=enable if props.get("UnitFileState", "").strip() not in ENABLED else None,
        backup=backup, new_unit=new_text, shown_unit=request.launches.write_unit(parsed, mask_flagset(written)),
        written=holder,
        lock=manager.lock_for(holder), notes=notes,
        env=with_files(changes, unit.file_environment()),
        facts={"DropInPaths": props.get("DropInPaths", "").strip() or "(none)",
               "UnitFileState": props.get("UnitFileState", "").strip() or "?"})
