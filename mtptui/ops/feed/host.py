"""The dashboard feed of a configured host, built on a ``mtptui.ops.connect`` session.

The log comes from the session's follower (SSH or local, reconnecting with backoff); the status from the
session's service manager (systemd state or the nohup process), the running server's process (its command
line is the launch that actually runs, its /proc start time gives the uptime, and what its log says it resolved
where the engine logs that: vLLM's ``non-default args``), the files it and the known-good profile read at start
(vLLM's `--config`, read on the host for the drift line: mtptui.ops.feed.files) and nvidia-smi; the server's
API is asked through the session (over an SSH tunnel for a remote host) what it says of itself, as the host's
engine reads it (``dashboard(engine).server_info``: SGLang's /server_info, vLLM's /version). It is never where
the uptime comes from; a launch it reports (SGLang 0.5.23's ``launch_command``) stands in only while the process
cannot be read.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Sequence

from mtptui.engines.polls import ServerInfo
from mtptui.engines.registry import dashboard
from mtptui.errors import UserError
from mtptui.ops.feed.files import LaunchFileReader
from mtptui.ops.feed.items import Feed, FeedItem, FollowerFeed, HostStatus, Source, merge_feeds
from mtptui.ops.gateway_poll import GatewayPoll
from mtptui.ops.gpu_poll import GpuPoll
from mtptui.ops.metrics_feed import MetricsSource
from mtptui.remote.service_state import ServiceState

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession

TAIL_LINES = 20_000  # a long-running server's log is read from its last lines (the startup may be older)


async def fetch_server_info(api_url: str, engine: str | None = None, version: str | None = None,
                            timeout_s: float = 3.0) -> ServerInfo | None:
    """What the server at ``api_url`` says of itself, as the engine called ``engine`` reads it (``version``: the
    one known so far), or None while the server cannot answer."""
    import httpx

    base = api_url.rstrip("/")
    try:
        async with httpx.AsyncClient(timeout=timeout_s, trust_env=False) as client:  # a tunnel: never a proxy
            async def get_json(path: str) -> tuple[int, Any]:
                response = await client.get(base + path)
                try:
                    return response.status_code, response.json()
                except ValueError:
                    return response.status_code, None

            return await dashboard(engine).server_info(get_json, version)
    except httpx.HTTPError:
        return None


def with_server_info(status: HostStatus, info: ServerInfo) -> HostStatus:
    """The status with the version the server reports, and the launch it reports where it does (until the
    process's own command line is read); its speculation where it says it."""
    launch, source = status.launch, status.launch_source
    if info.launch is not None:
        launch, source = info.launch, info.launch_source
    return replace(status, version=info.version or status.version, launch=launch, launch_source=source,
                   speculation=info.speculation)


def host_status(session: HostSession) -> HostStatus:
    """What the configuration alone says about the session's host."""
    host = session.host
    return HostStatus(host=host.name, where=host.ssh.target if host.ssh else "this machine",
                      service=session.manager.service_label(None),
                      version=dashboard(host.engine).host_version(host), gpu_memory_gb=host.gpu_memory_gb)


class SessionStatus:
    """A feed source: service state every ``every_s``; the running launch and (with ``api_url``) what the server
    says of itself every ``slow_every_s`` and whenever the service state changes (the GPUs are ``GpuPoll``'s,
    one poll)."""

    def __init__(self, session: HostSession, base: HostStatus, *, api_url: str | None = None, tunnel: bool = False,
                 every_s: float = 5.0, slow_every_s: float = 30.0) -> None:
        self.session = session
        self.status = base
        self.api_url = api_url
        self.tunnel = tunnel  # reach the API through session.api_url() (an SSH tunnel for a remote host)
        self.every_s, self.slow_every_s = every_s, slow_every_s
        self._poked = asyncio.Event()
        self._api_answered = False
        self._resolved: tuple[int, Any] | None = None  # (pid, its launch with what its log said it resolved)
        self._files = LaunchFileReader(session)

    def poke(self) -> None:
        """Look again now, as after a restart: a new process, a new start time, a new launch."""
        self._poked.set()

    async def __call__(self, emit: Callable[[FeedItem], Awaitable[None]]) -> None:
        loop = asyncio.get_running_loop()
        await emit(self.status)
        slow_due = loop.time()
        while True:
            poked = self._poked.is_set()
            self._poked.clear()
            state = await self._service_state()
            status = replace(self.status, service_state=state.words, service_phase=state.phase)
            changed = poked or status.service_state != self.status.service_state
            if changed:  # a restart: the old start time no longer holds
                status = replace(status, started_at=None)
            if loop.time() >= slow_due or changed:
                status = await self._running(status)
                # the API is not up yet: ask again soon
                waiting = (self.api_url or self.tunnel) and not self._api_answered
                slow_due = loop.time() + (self.every_s if waiting else self.slow_every_s)
            if status != self.status:
                self.status = status
                await emit(status)
            await self._pause()

    async def _pause(self) -> None:
        try:
            await asyncio.wait_for(self._poked.wait(), self.every_s)
        except asyncio.TimeoutError:
            pass

    async def _server_info(self) -> ServerInfo | None:
        """The server's word about itself; with ``tunnel`` the URL is (re)opened through the session when unset
        or failing."""
        if self.api_url is None and self.tunnel:
            try:
                self.api_url = await self.session.api_url()
            except UserError:
                return None
        host = self.session.host
        info = await fetch_server_info(self.api_url, host.engine, self.status.version) if self.api_url else None
        if info is None and self.tunnel:
            self.api_url = None  # the tunnel may have died with a dropped connection: open a new one next time
        return info

    async def _service_state(self) -> ServiceState:
        try:
            return await self.session.manager.state()
        except UserError as exc:
            return ServiceState("unknown", f"unknown ({exc})")

    def _compared_env(self) -> set[str]:
        """The variables the drift compares beside the engine's own: the known-good profile's (its HOME or
        PYTHONPATH, read from the process as the diff reads them, not "unset" because no prefix names them)."""
        host = self.session.host
        good = host.profiles.get(host.known_good) if host.known_good else None
        return set(good.env) if good is not None else set()

    async def _running(self, status: HostStatus) -> HostStatus:
        """The server's word about itself and the command line of the running server, with what its log says it
        resolved (each kept when unreadable)."""
        from mtptui.ops.launches import running_side, with_server_word

        info = await self._server_info()
        self._api_answered = info is not None
        status = with_server_info(status, info) if info else status
        try:
            running = await running_side(self.session, self._compared_env())
        except UserError:
            return status
        if running is not None and self._resolved is not None and self._resolved[0] == running.info.pid:
            running.side.flagset = self._resolved[1]  # the same process: its log said it once (no re-read)
        elif running is not None:
            read = running.side.flagset
            try:
                running = await with_server_word(self.session, running)
            except UserError:
                pass  # the log cannot be read now: the command line alone, and asked again next time
            if running is not None and running.side.flagset is not read:
                self._resolved = (running.info.pid, running.side.flagset)
        if running is not None:  # the process's own command line and start time: the only sources of both
            status = replace(status, launch=running.side.flagset, launch_source=f"running pid {running.info.pid}",
                             service=self.session.manager.service_label(running.info.pid),
                             started_at=running.info.started_at or status.started_at,
                             launch_files=await self._files(running))
        return status


def feed_for_host(session: HostSession, *, every_s: float = 5.0, slow_every_s: float = 30.0,
                  extra: Sequence[Source] = ()) -> Feed:
    """Log and status (service state every ``every_s``; process and the server's API every ``slow_every_s`` and
    whenever the state changes or a restart pokes), the GPUs (one nvidia-smi poll) of the host of ``session``,
    and ``extra`` sources."""
    from mtptui.remote.logsource import Start

    host = session.host
    follower = session.follower(start=Start.tail(TAIL_LINES))
    log = FollowerFeed(follower, f"{session.transport.label}: {session.log_source.describe()}",
                       make=lambda start: session.follower(start=start))
    status = SessionStatus(session, host_status(session), tunnel=True, every_s=every_s, slow_every_s=slow_every_s)
    gateway = [GatewayPoll(session)] if host.gateway is not None else []
    metrics = MetricsSource(session, dashboard(host.engine).host_version(host))
    return merge_feeds(log, status, GpuPoll(session.transport), metrics, *gateway, *extra,
                       on_close=[session.close])
