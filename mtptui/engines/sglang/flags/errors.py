"""The error every flag problem raises: one sentence for the user, SGLang's own text where it has one."""

from __future__ import annotations

from mtptui.errors import UserError


class FlagError(UserError):
    """A launch command SGLang would reject; ``str(error)`` is what the server prints before exiting.

    ``flag`` names the option concerned (canonical long name) and ``fix`` says what to change, when known.
    """

    def __init__(self, message: str, flag: str | None = None, fix: str | None = None) -> None:
        super().__init__(message)
        self.flag = flag
        self.fix = fix
