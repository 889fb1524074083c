"""The service manager a host's configuration asks for (the one place that picks the class)."""

from __future__ import annotations

from mtptui.config.models import ProcessServer, ServerConfig, SystemdServer
from mtptui.remote.handback import HandBackManager
from mtptui.remote.process import ProcessManager
from mtptui.remote.service import ServiceManager
from mtptui.remote.systemd import SystemdManager
from mtptui.remote.transport import Transport


def manager_for(server: ServerConfig, transport: Transport, port: int | None = None) -> ServiceManager:
    """The manager of ``server`` (``port``: the API's, which finds a server by its command line)."""
    if isinstance(server, SystemdServer):
        return SystemdManager(transport, server, port=port)
    assert isinstance(server, ProcessServer)  # the host file's validation knows only these two
    return ProcessManager(transport, server, port=port)


def handback_manager(server: ProcessServer, unit: str, transport: Transport,
                     port: int | None = None) -> HandBackManager:
    """The manager that hands ``server`` (a hand-started one) back to the systemd ``unit`` it replaced."""
    systemd = SystemdManager(transport, SystemdServer(unit=unit, command_prefix=server.command_prefix), port)
    return HandBackManager(systemd, ProcessManager(transport, server, port=port))
