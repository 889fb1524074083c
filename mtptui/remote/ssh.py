"""SSHTransport: commands on the GPU host over one asyncssh connection, reconnected when it drops.

Honours ``~/.ssh/config`` as operators write it (aliases, HostName, User, Port, IdentityFile through asyncssh's own
config support; UserKnownHostsFile and ProxyJump through mtptui.remote.sshconfig, so every hop's key is checked the
same way; ProxyCommand through mtptui.remote.proxy, so cancelling a connection never hangs), uses the SSH agent
and the configured identity file, sends keepalives, and verifies the host key against the known_hosts file
(mtptui.remote.hostkeys); verification can never be turned off, not even by ssh_config.
No password is ever asked for or stored.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

from mtptui.config.models import SSHConfig
from mtptui.errors import ConfigError
from mtptui.remote.bounded import GRACE_S, finish, guarded_line, host_timeout
from mtptui.remote.errors import ConnectError, ConnectionLost, LoginRefused, RemoteError
from mtptui.remote.hostkeys import AcceptHostKey, HostKeyQuestion, KnownHosts, SeenKey, ask, host_port
from mtptui.remote.proxy import ProxyProcess
from mtptui.remote.shell import Command
from mtptui.remote.sshconfig import SSHConfigView, read_ssh_config, split_hop
from mtptui.remote.transport import Completed
from mtptui.text import visible

KEEPALIVE_COUNT_MAX = 3


def _client_class() -> type[Any]:
    import asyncssh

    class KeyCheckingClient(asyncssh.SSHClient):
        """Records host keys known_hosts does not trust (so the refusal can name them) and lost connections."""

        def __init__(self, owner: "SSHTransport") -> None:
            self.owner = owner

        def validate_host_public_key(self, host: str, addr: str, port: int, key: Any) -> bool:
            if (host, port, key) in self.owner.accepted:
                return True
            self.owner.seen = SeenKey(host, port, key, changed=self.owner.known_hosts.has_entry(host, port))
            return False

        def connection_lost(self, exc: Exception | None) -> None:
            self.owner.closed = True

    return KeyCheckingClient


class SSHStream:
    """stdout of a remote process; stderr is collected for the error message."""

    def __init__(self, transport: "SSHTransport", process: Any) -> None:
        self.transport, self.process = transport, process
        self.exit_status: int | None = None
        self._stderr = bytearray()
        self._stderr_task = asyncio.ensure_future(self._collect_stderr())

    async def _collect_stderr(self) -> None:
        try:
            while chunk := await self.process.stderr.read(65536):
                self._stderr += chunk[-65536:]
        except Exception:  # the connection went away; read() reports it
            pass

    async def read(self, size: int = 65536) -> bytes:
        import asyncssh

        try:
            data: bytes = await self.process.stdout.read(size)
        except (asyncssh.Error, OSError) as exc:
            raise ConnectionLost(f"lost the connection to {self.transport.label}: {_reason(exc)}") from None
        if not data:
            await asyncio.wait([self._stderr_task], timeout=2)
            await self.process.wait_closed()
            if self.transport.closed and self.process.exit_status is None:
                raise ConnectionLost(f"lost the connection to {self.transport.label}")
            self.exit_status = self.process.exit_status
        return data

    def stderr_text(self) -> str:
        return bytes(self._stderr).decode("utf-8", "replace")

    async def close(self) -> None:
        self.process.close()
        self._stderr_task.cancel()


class SSHTransport:
    """Runs commands on a host over SSH; connects on first use and again after the connection dropped."""

    def __init__(self, config: SSHConfig, accept_host_key: AcceptHostKey | None = None,
                 connect_timeout: float = 10.0, ssh_config_files: list[str] | None = None,
                 tunnel: Any = None) -> None:
        self.config = config
        self.accept_host_key = accept_host_key if config.known_hosts == "ask" else None
        self.connect_timeout = connect_timeout
        self.ssh_config_files = ssh_config_files
        self.view = _view(config, ssh_config_files)
        self.known_hosts = KnownHosts(config.known_hosts_file or list(self.view.known_hosts_files))
        self.accepted: set[tuple[str, int, Any]] = set()
        self.declined: set[tuple[str, int, str]] = set()  # (host, port, fingerprint) the user said no to
        self.seen: SeenKey | None = None
        self.closed = True
        self.connections = 0  # how many connections were opened: a caller sees that one dropped meanwhile
        self._conn: Any = None
        self._tunnel = tunnel  # a connection to reach the host through (a ProxyJump hop), None for direct
        self._hops: list[SSHTransport] = []
        self._proxy: ProxyProcess | None = None  # the running ProxyCommand of the live connection
        self._lock = asyncio.Lock()
        self._forwards: dict[tuple[str, int], tuple[Any, int]] = {}  # (host, port) -> (connection, local port)
        user = config.user or self.view.user
        self.label = f"{user}@" * bool(user) + host_port(config.target, config.port)

    # Connecting ------------------------------------------------------------------------------------------

    def _options(self) -> dict[str, Any]:
        cfg = self.config
        options: dict[str, Any] = {
            "known_hosts": self.known_hosts.match,
            "client_factory": lambda: _client_class()(self),
            "keepalive_interval": cfg.keepalive_s,
            "keepalive_count_max": KEEPALIVE_COUNT_MAX,
            "connect_timeout": self.connect_timeout,
            "password_auth": False,
            "kbdint_auth": False,
        }
        if cfg.port is not None:
            options["port"] = cfg.port
        if cfg.user is not None:
            options["username"] = cfg.user
        if cfg.identity_file:
            options["client_keys"] = [str(Path(cfg.identity_file).expanduser())]
        if self.ssh_config_files is not None:
            options["config"] = self.ssh_config_files
        return options

    async def _through(self) -> Any:
        """The connection to tunnel through: the given one, else the last ProxyJump hop opened now, else None."""
        if self._tunnel is not None or not self.view.proxy_jump:
            return self._tunnel
        await self._close_hops()
        conn = None
        for hop in self.view.proxy_jump:
            user, host, port = split_hop(hop)
            hop_config = SSHConfig(target=host, port=port, user=user, known_hosts=self.config.known_hosts,
                                   keepalive_s=self.config.keepalive_s)
            transport = SSHTransport(hop_config, self.accept_host_key, self.connect_timeout, self.ssh_config_files,
                                     tunnel=conn)
            self._hops.append(transport)
            conn = await transport.connect()  # its errors name the hop
        return conn

    async def _close_hops(self) -> None:
        hops, self._hops = self._hops, []
        for hop in reversed(hops):
            await hop.close()

    async def connect(self) -> Any:
        """The live connection, opening it when there is none (or the last one dropped)."""
        async with self._lock:
            if self._conn is None or self.closed:
                self._stop_proxy()
                self._conn = await self._open()
                self.closed = False
                self.connections += 1
            return self._conn

    async def _open(self) -> Any:
        self.seen = None
        try:
            return await self._attempt()
        except _Refused as refused:
            seen = refused.seen
            question = HostKeyQuestion(seen.host, seen.port, seen.key_type, seen.fingerprint, self.known_hosts.path)
            asked = (seen.host, seen.port, seen.fingerprint)
            if seen.changed or self.accept_host_key is None or asked in self.declined:
                raise self.known_hosts.refusal(seen, declined=asked in self.declined) from None
            if not await ask(self.accept_host_key, question):
                self.declined.add(asked)  # asked once: the next connection attempt does not ask again
                raise self.known_hosts.refusal(seen, declined=True) from None
            self.known_hosts.add(seen)
            self.accepted.add((seen.host, seen.port, seen.key))
            return await self._attempt()

    def _check_identity(self) -> None:
        """A missing identity file is the user's to fix; say so before any network contact."""
        path = self.config.identity_file
        if path and not Path(path).expanduser().is_file():
            raise ConnectError(f"cannot connect to {self.label}: identity file {path} does not exist", retriable=False)

    async def _attempt(self) -> Any:
        self._check_identity()
        tunnel = await self._through()
        options = self._options() if tunnel is None else {**self._options(), "tunnel": tunnel}
        if tunnel is None and self.view.proxy_command:
            options["sock"] = self._start_proxy().sock
        try:
            return await self._connect_checked(options)
        except ConnectError as exc:
            said = self._stop_proxy()
            if said and exc.retriable:
                raise ConnectError(f"{exc}; its ProxyCommand said {visible(said)!r}") from None
            raise
        except BaseException:
            self._stop_proxy()
            raise

    def _start_proxy(self) -> ProxyProcess:
        try:
            self._proxy = ProxyProcess.start(self.view.proxy_command)
        except OSError as exc:
            raise ConnectError(f"cannot connect to {self.label}: cannot run its ProxyCommand "
                               f"{self.view.proxy_command[0]!r} ({exc.strerror or exc})", retriable=False) from None
        return self._proxy

    def _stop_proxy(self) -> str:
        """Stop the ProxyCommand of the last connection, if one runs; what it said on stderr."""
        proxy, self._proxy = self._proxy, None
        if proxy is None:
            return ""
        said = proxy.said()
        proxy.stop()
        return said

    async def _connect_checked(self, options: dict[str, Any]) -> Any:
        import asyncssh

        try:
            return await asyncssh.connect(self.config.target, **options)
        except asyncssh.HostKeyNotVerifiable as exc:
            if self.seen is not None:
                raise _Refused(self.seen) from None
            raise ConnectError(f"refusing to connect to {self.label}: {_reason(exc)}", retriable=False) from None
        except asyncssh.PermissionDenied:
            raise LoginRefused(f"cannot log in to {self.label}: no key was accepted ({self._keys_tried()})") from None
        except (asyncssh.KeyImportError, asyncssh.KeyEncryptionError) as exc:
            raise ConnectError(f"cannot use identity file {self.config.identity_file}: {_reason(exc)} "
                               f"(load an encrypted key into ssh-agent instead)", retriable=False) from None
        except socket.gaierror as exc:
            raise ConnectError(f"cannot connect to {self.label}: cannot resolve {self.config.target} "
                               f"({exc.strerror})", retriable=False) from None
        except (OSError, asyncio.TimeoutError, asyncssh.Error) as exc:
            raise ConnectError(f"cannot connect to {self.label}: {_reason(exc)}") from None

    def _keys_tried(self) -> str:
        if self.config.identity_file:
            return f"identity file {self.config.identity_file} and the SSH agent"
        return "the SSH agent and the default identity files"

    # Running ---------------------------------------------------------------------------------------------

    async def run(self, command: Command, timeout: float | None = None) -> Completed:
        import asyncssh

        conn = await self.connect()
        seconds = host_timeout(timeout)
        try:
            result = await asyncio.wait_for(conn.run(guarded_line(command, seconds), input=command.input,
                                                     encoding=None, check=False), seconds + GRACE_S)
        except asyncio.TimeoutError:
            raise RemoteError(f"{command.what or command.line} timed out after {seconds:g} s on {self.label} (no "
                              f"answer)") from None
        except (asyncssh.Error, OSError) as exc:
            self.closed = True
            raise ConnectionLost(f"lost the connection to {self.label}: {_reason(exc)}") from None
        if result.exit_status is None and self.closed:
            raise ConnectionLost(f"lost the connection to {self.label}")
        status = result.exit_status if result.exit_status is not None and result.exit_status >= 0 else None
        return finish(command, Completed(command.line, status, result.stdout or b"", result.stderr or b""), seconds,
                      self.label)

    async def open_stream(self, command: Command) -> SSHStream:
        import asyncssh

        conn = await self.connect()
        try:  # stdin stays open and silent: closing the channel (or losing it) ends the command on the host
            process = await conn.create_process(command.tied_to_stdin().line, encoding=None)
        except (asyncssh.Error, OSError) as exc:
            self.closed = True
            raise ConnectionLost(f"lost the connection to {self.label}: {_reason(exc)}") from None
        return SSHStream(self, process)

    async def forward_port(self, host: str, port: int) -> tuple[str, int]:
        """A loopback port here tunnelled over SSH to ``host:port`` as the GPU host sees it (ssh -L)."""
        import asyncssh

        conn = await self.connect()
        opened = self._forwards.get((host, port))
        if opened is not None and opened[0] is conn:  # one tunnel per target while the connection lives
            return "127.0.0.1", opened[1]
        try:
            listener = await conn.forward_local_port("127.0.0.1", 0, host, port)
        except (asyncssh.Error, OSError) as exc:
            raise RemoteError(f"cannot forward a port to {host}:{port} through {self.label}: {_reason(exc)}") from None
        self._forwards[(host, port)] = (conn, listener.get_port())
        return "127.0.0.1", listener.get_port()

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
            await conn.wait_closed()
        self.closed = True
        self._stop_proxy()
        await self._close_hops()


def _view(config: SSHConfig, files: list[str] | None) -> SSHConfigView:
    """ssh_config's view of the target; a file asyncssh cannot parse is a configuration error."""
    try:
        return read_ssh_config(config.target, config.port, config.user, files)
    except (ValueError, OSError) as exc:
        raise ConfigError(f"cannot read the SSH client configuration for {config.target}: {exc}") from None


class _Refused(Exception):
    def __init__(self, seen: SeenKey) -> None:
        self.seen = seen


def _reason(exc: BaseException) -> str:
    """A short reason for an asyncssh or socket error."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, asyncio.TimeoutError):
        return "timed out"
    reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return str(reason).rstrip(".")
