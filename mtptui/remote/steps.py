"""What a service manager plans for a restart: named steps forward and back, what ran before, how it stops.

    service = await manager.plan_launch(LaunchRequest(target, running=info, stamp="20260511-234907"))
    service.steps      # the commands that apply the launch, in order (each a ServiceStep)
    service.finish     # run once the server is ready (systemd: enable, when asked)
    service.previous   # what a rollback goes back to
    await manager.rollback_steps(service.previous, new_pid, changed)   # the commands that undo ``changed``

A use case (mtptui.ops.restart) asks the manager for both directions and never which manager it holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from mtptui.engines.registry import Launches, launches
from mtptui.remote.shell import Command

if TYPE_CHECKING:
    from mtptui.remote.procinfo import ProcessInfo
    from mtptui.remote.unitenv import EnvChange
    from mtptui.remote.unitfile import ConfiguredLaunch
    from mtptui.engines.sglang.flags.flagset import FlagSet


# The progress steps of a restart (mtptui.ops.progress reports them; a manager's steps are some of them).
RestartStep = Literal[
    "plan", "backup", "write_unit", "reload", "reset_failed", "stopping", "stopped", "starting", "loading",
    "allocating", "capturing_graphs", "warming_up", "ready", "crashed", "failed", "aborted", "timeout", "lost",
    "connection", "unreachable", "rolling_back", "rolled_back", "rollback_failed", "enabled", "warning", "done",
    "gateway_remove", "draining", "gateway_add", "gateway_ready", "canary",  # the gateway steps (ops.restart.drain)
]


@dataclass(frozen=True)
class ServiceStep:
    """A command the manager proposes, named as the progress step it is. ``starts``: it starts the server;
    ``atomic``: its failure leaves the host as it was (the unit write: all of it or nothing)."""

    step: RestartStep
    command: Command
    starts: bool = False
    atomic: bool = False


@dataclass
class PreviousRun:
    """What ran before a restart, so a rollback can go back to it; ``pid`` is the managed server's (unit's main pid).

    ``unit_path``/``unit_text`` are the file the restart rewrites (the unit, or the drop-in holding ExecStart=),
    ``unit_name`` the unit's name (``%n``/``%i`` in its ExecStart= expand from it).
    """

    running: bool
    unit_path: str | None = None
    unit_text: str | None = None
    process: ProcessInfo | None = None
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    workdir: str | None = None
    pid: int | None = None
    unit_name: str | None = None


@dataclass(frozen=True)
class StopPolicy:
    """How the manager stops the running server: TERM, then KILL after ``timeout_s`` (None: never), in its words.
    ``term_to``: who gets the TERM: "group" (the server and its children at once: systemd's KillMode=control-group,
    the process manager), "main" (the main process alone: KillMode=mixed or process), "" (unknown)."""

    timeout_s: float | None
    words: str  # e.g. "TimeoutStopSec=1min 30s" or "KILL 30 s after TERM"
    term_to: Literal["group", "main", ""] = ""


@dataclass(frozen=True)
class LaunchRequest:
    """What a restart asks of the manager: run ``target`` instead of what runs now.

    ``keep_interpreter``: the profile names no ``python``, so the host's interpreter stays; ``running`` is the
    server that runs now (None: none) and ``running_env`` its environment as compared; ``configured`` what the
    manager's ``configured()`` read (so the plan does not read it twice); ``drop_env`` names variables of the
    unit's Environment= the new one leaves out; ``stamp`` names the backup; ``enable``: enable once ready;
    ``launches`` how the host's engine reads and writes its launches (``target`` is its flag set).
    """

    target: FlagSet
    keep_interpreter: bool = True
    running: ProcessInfo | None = None
    running_env: dict[str, str] = field(default_factory=dict)
    configured: ConfiguredLaunch | None = None
    drop_env: frozenset[str] = frozenset()
    stamp: str = "backup"
    enable: bool = False
    launches: Launches = field(default_factory=lambda: launches(None))


@dataclass
class ServicePlan:
    """The manager's part of a restart plan: its steps forward, what a rollback goes back to, in its words."""

    target: FlagSet
    steps: list[ServiceStep]
    previous: PreviousRun
    rollback: str  # what a failed restart undoes, in one sentence
    stop: StopPolicy
    finish: list[ServiceStep] = field(default_factory=list)
    enable_offer: ServiceStep | None = None  # the step that would enable the unit, when it is not enabled
    backup: str | None = None
    new_unit: str | None = None  # the text written (the unit, or the drop-in holding ExecStart=)
    shown_unit: str | None = None  # new_unit with secret values masked: what the plan prints
    written: str | None = None  # the file written: the unit's, or its drop-in's
    lock: str | None = None
    notes: list[str] = field(default_factory=list)
    env: list[EnvChange] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)  # what the plan shows about the service (DropInPaths, ...)
