"""Errors that reach a user as one clear sentence instead of a traceback."""


class UserError(Exception):
    """A mistake the user can fix: bad input, unknown host, unreadable file.

    The CLI prints ``str(error)`` on stderr and exits with ``exit_code``.
    """

    exit_code = 1

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class ConfigError(UserError):
    """A host or profile file that cannot be used (exit status 2)."""

    exit_code = 2
