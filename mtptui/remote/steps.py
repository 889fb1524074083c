"""What a service manager proposes to a restart: named steps, and what it needs to know of the run before."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from mtptui.remote.shell import Command

if TYPE_CHECKING:
    from mtptui.remote.procinfo import ProcessInfo


@dataclass(frozen=True)
class ServiceStep:
    """A command the manager proposes, named as the progress step it is (``starts``: it starts the server)."""

    step: str
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
