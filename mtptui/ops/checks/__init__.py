"""The checks of `mtptui check HOST` (mtptui.ops.check runs them in order), and what they share.

Each check is ``async def check(ctx) -> Result``: one line of what was found and, when it fails, one imperative
sentence of what to do. Checks read the host and change nothing: every command goes through the session's
transport as a ``Command`` (each word quoted), with a timeout, so a hung host is one failed line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Final, Literal

from mtptui.remote.shell import Command
from mtptui.remote.transport import Completed

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.engines.registry import Launches
    from mtptui.ops.checks.launch import Launch
    from mtptui.ops.connect import HostSession
    from mtptui.remote.procinfo import ProcessInfo

Status = Literal["ok", "fail", "warn", "skip"]
OK: Final = "ok"
FAIL: Final = "fail"
WARN: Final = "warn"
SKIP: Final = "skip"
COMMAND_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Result:
    """One checked item: ``status`` is ok, fail, warn or skip; ``fix`` says what to do (None when nothing)."""

    name: str
    status: Status
    detail: str
    fix: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


@dataclass
class Context:
    """The session being checked, and what earlier checks found that later ones use."""

    session: HostSession
    host_file: Path | None = None
    user: str | None = None  # the login user on the host (ssh check)
    sudo_refused: set[str] = field(default_factory=set)  # commands sudo -n refused (sudo check)
    unit_found: bool | None = None  # systemd: the unit is loaded (server check)
    running: ProcessInfo | None = None  # the live server's process (server check)
    server_running: bool | None = None  # None when the server check could not tell
    start_command: str | None = None  # how to start the server when none runs (server check)
    models: dict[str, list[str]] = field(default_factory=dict)  # model path -> where it comes from

    @property
    def host(self) -> HostConfig:
        return self.session.host

    @property
    def engine_label(self) -> str:
        """The host's engine by name, for sentences ("SGLang", "vLLM")."""
        from mtptui.engines.registry import engine

        return engine(self.host.engine).label

    @property
    def launches(self) -> Launches:
        """How the host's engine reads its launches."""
        from mtptui.engines.registry import launches

        return launches(self.host.engine)

    @property
    def engine_version(self) -> str:
        """The release of the host's engine whose flags apply."""
        return self.launches.version(self.host)

    def read_launch(self, argv: list[str]) -> Launch:
        """``argv`` read by the host's engine."""
        from mtptui.ops.checks.launch import read_launch

        return read_launch(argv, self.engine_version, self.launches)

    @property
    def file_name(self) -> str:
        """How fixes name the host file."""
        return str(self.host_file) if self.host_file else "the host file"

    def add_model(self, path: str | None, source: str) -> None:
        if path and source not in self.models.setdefault(path, []):
            self.models[path].append(source)

    async def run(self, command: Command) -> Completed:
        return await self.session.transport.run(command, timeout=COMMAND_TIMEOUT_S)


Check = Callable[[Context], Awaitable[Result]]


def last_line(result: Completed) -> str:
    """The last non-empty line of stderr (else stdout, else the exit status): why a command failed."""
    for text in (result.err, result.out):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if lines:
            return lines[-1]
    return f"exit status {result.exit_status}"


def not_found(result: Completed) -> bool:
    """The shell could not find the program (exit 127)."""
    return result.exit_status == 127
