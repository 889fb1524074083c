"""How a service stands, in the one vocabulary every service manager speaks (mtptui.remote.service)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: How a service stands, whoever manages it: running, on its way up or down, stopped, failed, or not known.
ServicePhase = Literal["running", "starting", "stopping", "stopped", "failed", "unknown"]
DOWN: frozenset[ServicePhase] = frozenset({"stopped", "failed"})


@dataclass(frozen=True)
class ServiceState:
    """The service's ``phase``, and the manager's own ``words`` for it (systemd's ``failed (exit-code, status 1)``,
    the process manager's ``not running``); ``facts`` what the manager read (systemctl show's properties)."""

    phase: ServicePhase
    words: str
    pid: int | None = None
    facts: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def down(self) -> bool:
        """No server runs (stopped or failed)."""
        return self.phase in DOWN

    def __str__(self) -> str:
        return self.words
