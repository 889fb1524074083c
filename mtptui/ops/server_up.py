"""Is the server up: one answer, from what the host's manager says, what the log connection does and what the log
shows, computed here once so that no pane, key or verdict reads those three itself.

The manager's phase (mtptui.remote.service_state) decides whether a server runs; the log says only how a run
that the manager calls over ended (crashed or stopped) and how far a run the manager does not call over has got.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from mtptui.remote.service_state import DOWN, ServicePhase
from mtptui.engines.sglang.state import phases

if TYPE_CHECKING:
    from mtptui.ops.feed.items import HostStatus
    from mtptui.remote.follow import ConnectionStatus
    from mtptui.engines.sglang.state import ServerState

#: ``offline``: the host does not answer; ``down``: its manager says no server runs; ``stopping``/``starting``:
#: on its way; ``up``: the log shows it serving and its manager does not say otherwise; ``unknown``: neither says.
UpState = Literal["up", "starting", "stopping", "down", "offline", "unknown"]
Down = Literal["crashed", "stopped"]
OFFLINE_CONNECTIONS = frozenset({"reconnecting", "failed"})  # the log connection's states: nothing comes from the host


@dataclass(frozen=True)
class ServerUp:
    """``state``, and ``reason``: "crashed" or "stopped" when down, why the host does not answer when offline."""

    state: UpState
    reason: str | None = None

    @property
    def down(self) -> Down | None:
        """"crashed" or "stopped" when the manager says no server runs, else None."""
        return "crashed" if self.state == "down" and self.reason == "crashed" else \
            "stopped" if self.state == "down" else None

    @property
    def offline(self) -> str | None:
        """Why the host does not answer (the log connection retries or gave up), else None."""
        return self.reason if self.state == "offline" else None


def server_up(connection: ConnectionStatus, status: HostStatus | None, log: ServerState) -> ServerUp:
    """The one judgement (``status``: the host's last status, None before the first; ``log``: the server's log as
    the dashboard has read it)."""
    if connection.state in OFFLINE_CONNECTIONS:
        return ServerUp("offline", connection.reason or connection.state)
    service: ServicePhase = status.service_phase if status is not None else "unknown"
    if service in DOWN:
        return ServerUp("down", ended_as(service, log))
    if service in ("starting", "stopping"):
        return ServerUp(service)
    if log.phase not in phases.SETTLED and log.startups:
        return ServerUp("starting")
    return ServerUp("up") if log.phase == phases.READY else ServerUp("unknown")


def ended_as(service: ServicePhase, log: ServerState) -> Down:
    """How a run its manager calls over ended. A server its log shows was told to stop (SGLang's SIGTERM line) and
    that then died of no error stopped, even when its manager calls it failed: SGLang 0.5.12.post1 ends every drain
    by SIGKILL to itself, which systemd reports as ``failed (signal 9)``."""
    if log.phase == phases.CRASHED:
        return "crashed"
    return "crashed" if service == "failed" and not log.startup.stopping else "stopped"
