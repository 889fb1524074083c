"""Plan a restart with a launch profile: the diff, the lint, and the exact commands, before anything changes.

``plan_restart`` only reads the host. The host's service manager plans its own part (mtptui.remote.steps:
``ServiceManager.plan_launch``): the commands that apply the profile (systemd: back up and write the file holding
ExecStart= atomically, daemon-reload, reset-failed, restart; process: stop the process group, relaunch), the
commands run once the server is ready (systemd: enable, when asked), what a rollback goes back to, how it stops
the running server, and the lock file the restart holds on the host. This module adds what every manager shares:
the diff of running, configured and profile, the lint, and what the stop may cost. A dry run prints exactly
these commands; mtptui.ops.restart.run executes them. The lint is the verdict of the SGLang installed on the
host when it can give one (mtptui.ops.host_lint: a few seconds, read-only), else the offline table's;
``lint_source`` says which, and why not the host.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Collection

from mtptui.engines.registry import Launches, engine, launches
from mtptui.ops.diff_live import default_profile
from mtptui.ops.host_files import file_reader, with_launch_files
from mtptui.ops.launches import Running, Side, configured_side, profile_side, running_side
from mtptui.ops.restart.drain import DrainOptions, DrainPlan, plan_drain
from mtptui.ops.restart.stop import stop_notes
from mtptui.remote.steps import LaunchRequest, PreviousRun, ServiceStep, StopPolicy
from mtptui.remote.unitenv import EnvChange
from mtptui.engines.sglang.flags import Diff, FlagSet, render_argv
from mtptui.engines.finding import Finding
from mtptui.engines.sglang.lint.verdict import LintSource, LintVerdict

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession

Step = ServiceStep  # a command of the plan and the progress step it reports (the manager's own steps)
Previous = PreviousRun  # what ran before, so a rollback can go back to it


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
    enable_offer: Step | None = None  # the step that would enable the unit once ready, when it is not enabled
    stop: StopPolicy | None = None  # how the manager stops the running server
    facts: dict[str, str] = field(default_factory=dict)  # what the manager shows of the service (DropInPaths, ...)
    written: str | None = None  # the file new_unit is written to (the unit, or its drop-in)
    drain: DrainPlan | None = None  # the gateway steps around the stop and start (mtptui.ops.restart.drain)
    engine: str = "sglang"  # the host's engine: ``target`` is its flag set

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

    def enabling(self) -> "RestartPlan":
        """This plan, enabling the unit once the server is ready (what the dialog offers)."""
        if self.enable_offer is None or self.enable_offer in self.finish:
            return self
        return replace(self, finish=[*self.finish, self.enable_offer])

    def to_json(self) -> dict[str, object]:
        return {"engine": self.engine, "host": self.host, "profile": self.profile, "manager": self.manager,
                "diff": self.diff.to_json() if self.diff else None,
                "findings": [f.to_dict() for f in self.findings], "notes": list(self.notes),
                "lint_source": self.judged_by.to_json(), "lint_notes": list(self.lint_notes),
                "steps": [_step_json(s) for s in self.steps], "after_ready": [_step_json(s) for s in self.finish],
                "backup": self.backup, "new_unit": self.shown_unit, "written": self.written, "lock": self.lock,
                "environment": [change.to_json() for change in self.env], "rollback": self.rollback,
                "service": dict(self.facts), "can_enable": self.enable_offer is not None,
                "stop": {"timeout_s": self.stop.timeout_s, "words": self.stop.words,
                         "term_to": self.stop.term_to} if self.stop else None,
                "gateway": self.drain.to_json() if self.drain else None}


def _step_json(step: Step) -> dict[str, str]:
    return {"step": step.step, "what": step.command.what, "command": step.command.shown}


async def _lint(session: HostSession, target: FlagSet, model: Launches) -> LintVerdict:
    """The target judged by its engine's own lint where it has one, else by the host's SGLang, in the interpreter
    the restart will run (or the offline table)."""
    from mtptui.ops.host_lint import lint_on_host

    if model.lint is not None:
        verdict: LintVerdict = model.lint(target)
        return verdict
    return await lint_on_host(session, render_argv(target), target.env, target.python)


def _with_lint(plan: RestartPlan, verdict: LintVerdict) -> RestartPlan:
    plan.findings, plan.lint_source, plan.lint_notes = list(verdict.findings), verdict.source, verdict.notes
    return plan


def _diff(sides: list[Side | None], model: Launches) -> Diff | None:
    """The diff of the sides there are; None when only the profile is (nothing runs, nothing configured)."""
    present = [s for s in sides if s is not None]
    return model.diff([(s.label, s.flagset) for s in present], False) if len(present) > 1 else None


async def _resolved(sides: list[Side | None], session: HostSession, model: Launches) -> list[Side | None]:
    """Copies of the sides with the files their launches read at start (vLLM's `--config`) read on the host and
    applied, as `mtptui diff` does (mtptui.ops.host_files), so a changed file under the same path is a difference;
    the request keeps the path. A file that cannot be read is one sentence (HostFileError), never "no change"."""
    read = file_reader(session)
    return [None if s is None else await with_launch_files(replace(s), model, read) for s in sides]


def _side(running: Running | None) -> Side | None:
    return running.side if running else None


def _notes(session: HostSession, running: Running | None) -> list[str]:
    label = engine(session.host.engine).label
    return [] if running else [f"no {label} server is running on {session.host.name} now"]


async def plan_restart(session: HostSession, profile_name: str | None = None, stamp: str | None = None,
                       drop_env: Collection[str] = (), enable: bool = False,
                       drain: DrainOptions = DrainOptions()) -> RestartPlan:
    """The plan for restarting ``session``'s host with a profile (the known-good one by default).

    ``stamp`` names the unit's backup (default: the time and this process's pid); ``drop_env`` names variables
    of the unit's Environment= that the new unit leaves out (by default they are kept); ``enable`` enables the
    unit once the server is ready (where the manager has such a thing); ``drain`` the gateway steps asked for.
    """
    name, model = profile_name or default_profile(session.host), launches(session.host.engine)
    profile, profile_s = profile_side(session.host, name)
    configured, launch = await configured_side(session)
    running = await running_side(session, set(profile.env) | (set(configured.flagset.env) if configured else set()))
    request = LaunchRequest(profile_s.flagset, keep_interpreter="python" not in profile.model_fields_set,
                            running=running.info if running else None,
                            running_env=running.side.flagset.env if running else {}, configured=launch,
                            drop_env=frozenset(drop_env),
                            stamp=stamp or f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}", enable=enable,
                            launches=model)
    service = await session.manager.plan_launch(request)
    gateway, gateway_notes = await plan_drain(session, drain)
    stopping = stop_notes(service.stop, running, session.host.sglang_version, bool(gateway and gateway.active)) \
        if model.stop_facts else []
    notes = _notes(session, running) + service.notes + gateway_notes + stopping
    compared = await _resolved([_side(running), configured, profile_s], session, model)
    plan = RestartPlan(session.host.name, name, session.manager.kind, service.target,
                       _diff(compared, model), [], service.steps, service.finish,
                       service.previous, service.backup, service.new_unit, notes, shown_unit=service.shown_unit,
                       lock=service.lock, env=service.env, rollback=service.rollback,
                       enable_offer=service.enable_offer, stop=service.stop, facts=service.facts,
                       written=service.written, drain=gateway, engine=session.host.engine)
    return _with_lint(plan, await _lint(session, service.target, model))
