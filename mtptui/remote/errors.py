"""Errors of the remote layer; each one reads as one sentence to a user."""

from __future__ import annotations

from mtptui.errors import UserError


class RemoteError(UserError):
    """Something on the way to, or on, the host went wrong."""

    retriable = False


class ConnectError(RemoteError):
    """The connection could not be made; ``retriable`` says whether trying again may help."""

    def __init__(self, message: str, retriable: bool = True) -> None:
        super().__init__(message)
        self.retriable = retriable


class HostKeyRefused(ConnectError):
    """The host's key is unknown or changed and was not accepted; never retried."""

    def __init__(self, message: str, host: str, port: int, fingerprint: str, changed: bool, key_type: str = "",
                 known_hosts_file: str = "") -> None:
        super().__init__(message, retriable=False)
        self.host, self.port, self.fingerprint, self.changed = host, port, fingerprint, changed
        self.key_type, self.known_hosts_file = key_type, known_hosts_file


class LoginRefused(ConnectError):
    """The host answered but accepted none of the keys offered; never retried."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retriable=False)


class ConnectionLost(RemoteError):
    """An open connection died (network, sshd killed, keepalive timeout)."""

    retriable = True


class CommandFailed(RemoteError):
    """A command ran and exited non-zero."""

    def __init__(self, message: str, exit_status: int | None, stderr: str = "") -> None:
        super().__init__(message)
        self.exit_status, self.stderr = exit_status, stderr


class ReadOnlyError(UserError):
    """An action that changes the host was refused because mtptui runs with --readonly."""
