"""Errors that reach a user as one clear sentence instead of a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence


class UserError(Exception):
    """A mistake the user can fix: bad input, unknown host, unreadable file.

    The CLI prints ``str(error)`` on stderr and exits with ``exit_code``.
    """

    exit_code = 1

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


def os_reason(exc: BaseException) -> str:
    """The operating system's reason deepest in the chain (``connection refused``), else the error's first line."""
    import os

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno:
            return os.strerror(cause.errno).lower()
        cause = cause.__cause__ or cause.__context__
    return (str(exc) or type(exc).__name__).splitlines()[0]


class ConfigError(UserError):
    """A host or profile file that cannot be used (exit status 2)."""

    exit_code = 2


class UnknownHost(ConfigError):
    """No host file defines ``name``; ``hosts`` are the defined names close to it, ``commands`` the commands."""

    def __init__(self, name: str, searched: list[Path], hosts: list[str], commands: Sequence[str] = ()) -> None:
        self.name, self.searched, self.hosts, self.commands = name, searched, hosts, list(commands)
        where = ", ".join(str(p) for p in searched) or "no host files found"
        meant = [f"host {host}" for host in hosts] + [f"the command `mtptui {command}`" for command in commands]
        hint = f" Did you mean {' or '.join(meant)}?" if meant else ""
        super().__init__(f"unknown host {name!r}: no host file defines it (searched: {where}).{hint}")
