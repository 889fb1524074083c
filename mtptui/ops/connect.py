"""A session with a host: its transport (SSH or local), its service manager and its log source.

    async with open_session(host, readonly=args.readonly) as session:
        follower = session.follower(start=Start.tail(500))

The dashboard and the headless commands both start here. With ``readonly`` every command that changes the
host is refused by the transport itself (mtptui.remote.transport.ReadOnlyTransport).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from mtptui.config.models import HostConfig, ProcessServer
from mtptui.errors import ConfigError
from mtptui.remote.follow import Backoff, ConnectionStatus, LogFollower
from mtptui.remote.hostkeys import AcceptHostKey
from mtptui.remote.local import LocalTransport
from mtptui.remote.logsource import FileLog, JournalLog, LogPosition, Start
from mtptui.remote.managers import manager_for
from mtptui.remote.service import ServiceManager
from mtptui.remote.service_work import UnitView
from mtptui.remote.shell import Command
from mtptui.remote.transport import ReadOnlyTransport, Transport

if TYPE_CHECKING:
    from mtptui.remote.gpu import GpuStat


class _Journal:
    """The journal of the manager's unit; a hand-started server has none."""

    def unit(self, unit: UnitView) -> JournalLog:
        return JournalLog(unit.unit, unit.command_prefix)

    def process(self, config: ProcessServer) -> None:
        return None


@dataclass
class HostSession:
    """One host reached through one transport."""

    host: HostConfig
    transport: Transport
    manager: ServiceManager
    readonly: bool = False

    @property
    def log_source(self) -> FileLog | JournalLog:
        log = self.host.log
        if log.kind == "file":
            assert log.path is not None  # the host file's validation requires a path for a file log
            return FileLog(log.path)
        journal = self.manager.pick(_Journal())
        if journal is None:
            raise ConfigError(f"host {self.host.name!r}: a journal log needs a systemd server "
                              '(set log.kind = "file")')
        return journal

    def follower(self, *, start: Start = Start.end(), position: LogPosition = None, backoff: Backoff = Backoff(),
                 on_status: Callable[[ConnectionStatus], None] | None = None,
                 wait_for_log: bool = False) -> LogFollower:
        """A follower of the server log (see mtptui.remote.follow)."""
        return LogFollower(self.transport, self.log_source, start=start, position=position, backoff=backoff,
                           on_status=on_status, wait_for_log=wait_for_log)

    async def service_state(self) -> tuple[str, str]:
        """(what runs the server, its state) for a status line, e.g. ("sglang-qwen.service pid 42", "active")."""
        return await self.manager.describe()

    async def gpus(self) -> list[GpuStat] | None:
        """Memory and utilisation per GPU (mtptui.remote.gpu.GpuStat), or None without nvidia-smi."""
        from mtptui.remote.gpu import query_gpus

        return await query_gpus(self.transport)

    async def api_url(self) -> str:
        """The host's ``api_url`` reachable from this machine: through an SSH tunnel when the host is remote."""
        return await self.url_here(self.host.api_url)

    async def url_here(self, url: str) -> str:
        """``url`` as the host sees it (its API, its gateway), reachable from this machine: tunnelled over SSH."""
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(url)
        default_port = 443 if parts.scheme == "https" else 80
        host, port = await self.transport.forward_port(parts.hostname or "127.0.0.1", parts.port or default_port)
        if (host, port) == (parts.hostname, parts.port or default_port):
            return url
        return urlunsplit((parts.scheme, f"{host}:{port}", parts.path, parts.query, parts.fragment))

    async def check(self) -> None:
        """Connect now, so an unreachable host or a refused key is reported before anything else."""
        (await self.transport.run(Command.of(["true"], "check the connection"))).check("checking the connection")

    async def close(self) -> None:
        await self.transport.close()

    async def __aenter__(self) -> "HostSession":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def make_transport(host: HostConfig, accept_host_key: AcceptHostKey | None = None) -> Transport:
    if host.ssh is None:
        return LocalTransport()
    from mtptui.remote.ssh import SSHTransport

    return SSHTransport(host.ssh, accept_host_key)


def api_port(host: HostConfig) -> int | None:
    """The port of the host's API: the server mtptui manages is the one serving it."""
    from urllib.parse import urlsplit

    try:
        return urlsplit(host.api_url).port
    except ValueError:
        return None


def make_manager(host: HostConfig, transport: Transport) -> ServiceManager:
    return manager_for(host.server, transport, port=api_port(host))


def open_session(host: HostConfig, *, readonly: bool = False, accept_host_key: AcceptHostKey | None = None,
                 transport: Transport | None = None) -> HostSession:
    """A session (nothing is contacted until the first command)."""
    transport = transport or make_transport(host, accept_host_key)
    if readonly:
        transport = ReadOnlyTransport(transport)
    return HostSession(host, transport, make_manager(host, transport), readonly)

