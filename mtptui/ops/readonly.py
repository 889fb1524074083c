"""The --readonly guard: every action that changes the host is refused with one sentence."""

from __future__ import annotations

from mtptui.remote.errors import ReadOnlyError


def refuse_if_readonly(readonly: bool, action: str, host: str) -> None:
    """Raise ReadOnlyError (exit 1) naming the action when mtptui runs with --readonly."""
    if readonly:
        raise ReadOnlyError(f"refusing to {action} on {host}: mtptui runs with --readonly")
