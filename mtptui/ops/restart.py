"""Plan a restart with a launch profile: the diff, the lint, and the exact commands, before anything changes.

``plan_restart`` only reads the host. ``RestartPlan`` lists the commands that apply the profile (systemd:
back up and write the unit atomically, daemon-reload, restart; process: stop the process group, relaunch),
the command run once the server is ready (systemd: enable), what a rollback goes back to, and the lock file the
restart holds on the host. The unit's own Environment= variables stay unless the operator drops them
(mtptui.ops.restart_env). A dry run prints exactly these commands; mtptui.ops.restart_run executes them. The lint
is the verdict of the SGLang installed on the host when it can give one (mtptui.ops.host_lint: a few seconds,
read-only), else the offline table's; ``lint_source`` says which, and why not the host.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable, Collection

from mtptui.errors import UserError
from mtptui.ops.diff_live import default_profile
from mtptui.ops.launches import Running, Side, configured_side, profile_side, running_side, systemd_side
from mtptui.ops.restart_env import EnvChange, merge_env
from mtptui.remote.procinfo import ProcessInfo
from mtptui.remote.process import ProcessManager, stop_group_command
from mtptui.remote.shell import Command
from mtptui.remote.steps import RestartStep
from mtptui.remote.systemd import SystemdManager, backup_path, lock_path
from mtptui.secrets import mask_flagset
from mtptui.sglang.flags import Diff, Finding, FlagSet, diff_flagsets, render_argv
from mtptui.sglang.flags.command import find_entry
from mtptui.sglang.flags.verdict import LintSource, LintVerdict

if TYPE_CHECKING:
    from mtptui.config.models import LaunchProfile
    from mtptui.ops.connect import HostSession

STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Step:
    """A command of the plan and the progress step it reports; ``starts`` marks the one that starts the server,
    ``atomic`` one whose failure leaves the host as it was (the unit write: all of it or nothing)."""

    step: RestartStep
    command: Command
    starts: bool = False
    atomic: bool = False


@dataclass
class Previous:
    """What ran before, so a rollback can go back to it; ``pid`` is the managed server's (unit's main pid)."""

    running: bool
    unit_path: str | None = None
    unit_text: str | None = None
    process: ProcessInfo | None = None
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    workdir: str | None = None
    pid: int | None = None
    unit_name: str | None = None  # the systemd unit's name (``%n``/``%i`` in its ExecStart= expand from it)


@dataclass
class RestartPlan:
    """Everything a restart will do, readable before it does it."""

    host: str
    profile: str
    manager: str
    target: FlagSet
    diff: Diff | None
    findings: list[Finding]
    steps: list[Step]
    finish: list[Step]
    previous: Previous
    backup: str | None = None
    new_unit: str | None = None
    notes: list[str] = field(default_factory=list)
    shown_unit: str | None = None  # new_unit with secret values masked: what the plan prints
    lint_source: LintSource | None = None  # who judged ``findings``; None: the offline table of the target's version
    lint_notes: list[str] = field(default_factory=list)
    lock: str | None = None
    env: list[EnvChange] = field(default_factory=list)
    rollback: str = ""  # what a failed restart undoes, in the manager's words (ServiceManager.rollback_summary)

    @property
    def judged_by(self) -> LintSource:
        return self.lint_source or LintSource("offline", self.target.version)

    @property
    def blocking(self) -> list[Finding]:
        """Findings SGLang itself would stop on: restarting would only cost a load and crash."""
        return [f for f in self.findings if f.stops_server]

    @property
    def commands(self) -> list[str]:
        return [s.command.shown for s in self.steps + self.finish]

    def to_json(self) -> dict[str, object]:
        return {"host": self.host, "profile": self.profile, "manager": self.manager,
                "diff": self.diff.to_json() if self.diff else None,
                "findings": [f.to_dict() for f in self.findings], "notes": list(self.notes),
                "lint_source": self.judged_by.to_json(), "lint_notes": list(self.lint_notes),
                "steps": [{"step": s.step, "what": s.command.what, "command": s.command.shown} for s in self.steps],
                "after_ready": [{"step": s.step, "what": s.command.what, "command": s.command.shown}
                                for s in self.finish],
                "backup": self.backup, "new_unit": self.shown_unit, "lock": self.lock,
                "environment": [change.to_json() for change in self.env], "rollback": self.rollback}


def _entry_from(profile: LaunchProfile, target: FlagSet, current: FlagSet | None) -> None:
    """Keep the host's interpreter (a venv's python) unless the profile names one itself."""
    if "python" not in profile.model_fields_set and current is not None:
        target.entry = current.entry


async def _lint(session: HostSession, target: FlagSet) -> LintVerdict:
    """The target judged by the host's SGLang, in the interpreter the restart will run (or the offline table)."""
    from mtptui.ops.host_lint import lint_on_host

    return await lint_on_host(session, render_argv(target), target.env, target.python)


def _with_lint(plan: RestartPlan, verdict: LintVerdict) -> RestartPlan:
    plan.findings, plan.lint_source, plan.lint_notes = verdict.findings, verdict.source, verdict.notes
    return plan


def _diff(sides: list[Side | None]) -> Diff | None:
    """The diff of the sides there are; None when only the profile is (nothing runs, nothing configured)."""
    present = [s for s in sides if s is not None]
    return diff_flagsets([(s.label, s.flagset) for s in present]) if len(present) > 1 else None


async def plan_restart(session: HostSession, profile_name: str | None = None, stamp: str | None = None,
                       drop_env: Collection[str] = ()) -> RestartPlan:
    """The plan for restarting ``session``'s host with a profile (the known-good one by default).

    ``stamp`` names the unit's backup (default: the time and this process's pid); ``drop_env`` names variables
    of the unit's Environment= that the new unit leaves out (by default they are kept).
    """
    name = profile_name or default_profile(session.host)
    profile, profile_s = profile_side(session.host, name)
    stamp = stamp or f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    return await PLANNERS[session.manager.kind](session, name, profile, profile_s, stamp, set(drop_env))


async def _plan_systemd(session: HostSession, name: str, profile: LaunchProfile, profile_s: Side, stamp: str,
                        drop_env: set[str]) -> RestartPlan:
    """Rewrite the unit's launch (backed up first), daemon-reload, restart; enable once ready."""
    from mtptui.sglang.unit import read_unit, with_launch

    manager = session.manager
    assert isinstance(manager, SystemdManager)  # PLANNERS chose this planner by the manager's kind
    unit_s, unit_file = await systemd_side(manager, session.host.sglang_version)
    fragment = read_unit(unit_file.text, name=manager.unit)
    if fragment.exec_argv != read_unit(unit_file.effective, name=manager.unit).exec_argv:
        raise UserError(f"{manager.unit}'s ExecStart= comes from a drop-in, not {unit_file.path}; mtptui only "
                        f"rewrites the unit file itself, so edit the drop-in by hand")
    running = await running_side(session, set(profile.env) | set(unit_s.flagset.env))
    target = profile_s.flagset
    _entry_from(profile, target, unit_s.flagset)
    target.env, env_changes = merge_env(fragment.environment, target.env, drop_env)
    new_text = with_launch(fragment, target)
    backup = backup_path(unit_file.path, stamp)
    main_pid = await manager.main_pid()
    stray = running.info if running and running.info.pid != main_pid else None
    steps = ([Step("stopping", stop_group_command(stray.pid, stray.pgid, STOP_TIMEOUT_S, manager.prefix))]
             if stray else [])
    steps += [Step("write_unit", manager.write_command(unit_file.path, new_text, backup), atomic=True),
             Step("reload", manager.daemon_reload_command()),
             Step("starting", manager.restart_command(), starts=True)]
    active = main_pid is not None or (await manager.is_active()) in ("active", "activating")
    previous = Previous(active, unit_path=unit_file.path, unit_text=unit_file.text, pid=main_pid,
                        unit_name=manager.unit)
    notes = _notes(session, running)
    if stray:
        notes.append(f"pid {stray.pid} runs SGLang outside {manager.unit}: it is stopped first, and a rollback "
                     f"restores the unit, not that server")
    plan = RestartPlan(session.host.name, name, "systemd", target, _diff([_side(running), unit_s, profile_s]), [],
                       steps, [Step("enabled", manager.enable_command())], previous, backup, new_text, notes,
                       shown_unit=with_launch(fragment, mask_flagset(target)), lock=lock_path(unit_file.path),
                       env=env_changes, rollback=manager.rollback_summary(previous))
    return _with_lint(plan, await _lint(session, target))


def _side(running: Running | None) -> Side | None:
    return running.side if running else None


def _notes(session: HostSession, running: Running | None) -> list[str]:
    return [] if running else [f"no SGLang server is running on {session.host.name} now"]


def _entry_of(argv: list[str]) -> str | None:
    found = find_entry(argv)
    if found is None:
        return None
    import shlex

    return shlex.join(argv[found[0]:found[1]])


async def _plan_process(session: HostSession, name: str, profile: LaunchProfile, profile_s: Side, stamp: str,
                        drop_env: set[str]) -> RestartPlan:
    """Stop the running server's process group, launch the profile with setsid nohup."""
    if drop_env:
        raise UserError(f"--drop-env applies to a systemd unit's Environment=; {session.host.name} runs a process")
    manager = session.manager
    assert isinstance(manager, ProcessManager)  # PLANNERS chose this planner by the manager's kind
    configured, _ = await configured_side(session)
    running = await running_side(session, set(profile.env))
    target = profile_s.flagset
    if "python" not in profile.model_fields_set and running and (entry := _entry_of(running.info.argv)):
        target.entry = entry
    info = running.info if running else None
    workdir = manager.config.workdir or (info.cwd if info else None)
    steps = [Step("stopping", manager.stop_command(info))] if info else []
    steps.append(Step("starting", manager.launch_command(target.entry_argv + render_argv(target), target.env, workdir),
                      starts=True))
    previous = Previous(info is not None, process=info, argv=list(info.argv) if info else [],
                        env=running.side.flagset.env if running else {}, workdir=info.cwd if info else None,
                        pid=info.pid if info else None)
    plan = RestartPlan(session.host.name, name, "process", target, _diff([_side(running), configured, profile_s]), [],
                       steps, [], previous, notes=_notes(session, running), lock=manager.lock_path(),
                       rollback=manager.rollback_summary(previous))
    return _with_lint(plan, await _lint(session, target))


# The one place that knows which plan fits which service manager (ServiceManager.kind).
Planner = Callable[["HostSession", str, "LaunchProfile", Side, str, set[str]], Awaitable[RestartPlan]]
PLANNERS: dict[str, Planner] = {"systemd": _plan_systemd, "process": _plan_process}
