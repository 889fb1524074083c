"""A systemd unit file as read from a host: the systemd manager's unit, or the one a hand-started server replaced."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UnitFile:
    """The unit's main file (FragmentPath) and its text; ``effective`` is `systemctl cat` (with drop-ins)."""

    path: str
    text: str
    effective: str
