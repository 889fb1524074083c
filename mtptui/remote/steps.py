"""What a service manager proposes to a restart: named steps, and what it needs to know of the run before."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from mtptui.remote.shell import Command

if TYPE_CHECKING:
    from mtptui.remote.procinfo import ProcessInfo


# The progress steps of a restart (mtptui.ops.progress reports them; a manager's steps are some of them).
RestartStep = Literal[
    "plan", "backup", "write_unit", "reload", "stopping", "stopped", "starting", "loading", "allocating",
    "capturing_graphs", "warming_up", "ready", "crashed", "failed", "aborted", "timeout", "lost", "connection",
    "unreachable", "rolling_back", "rolled_back", "rollback_failed", "enabled", "warning", "done",
]


@dataclass(frozen=True)
class ServiceStep:
    """A command the manager proposes, named as the progress step it is (``starts``: it starts the server)."""

    step: RestartStep
    command: Command
    starts: bool = False


class PreviousRun(Protocol):
    """What ran before a restart, as a manager needs it to go back (mtptui.ops.restart.Previous)."""

    running: bool
    unit_path: str | None
    unit_text: str | None
    process: ProcessInfo | None
    argv: list[str]
    env: dict[str, str]
    workdir: str | None
