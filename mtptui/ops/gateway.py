"""The gateway of a host, reached the way everything of the host is: through its session.

    async with await open_gateway(session) as gateway:
        mine = await this_worker(gateway, session.host)

A host file's ``[gateway] url`` is the gateway as the GPU host sees it, so a remote host's gateway is reached
through an SSH port forward (``HostSession.url_here``), never from this machine directly. Its token is read
from the file or variable ``[gateway]`` names, when the gateway is opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.config.models import GatewayConfig, HostConfig
from mtptui.errors import ConfigError
from mtptui.gateway.client import Gateway
from mtptui.gateway.credentials import read_token
from mtptui.gateway.http import DEADLINE_S
from mtptui.gateway.match import find_worker, worker_addresses
from mtptui.gateway.workers import Worker

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession


def gateway_config(host: HostConfig) -> GatewayConfig:
    if host.gateway is None:
        raise ConfigError(f"host {host.name!r} names no gateway: add a [gateway] table with its url to the host file")
    return host.gateway


async def open_gateway(session: HostSession, *, deadline_s: float = DEADLINE_S) -> Gateway:
    """The host's gateway, its token read and its URL tunnelled when the host is remote."""
    config = gateway_config(session.host)
    token = read_token(config.bearer_token_file, config.bearer_token_env)
    url = await session.url_here(config.url)
    return Gateway(url, token=token, label=config.url, deadline_s=deadline_s,
                   token_hint="bearer_token_file or bearer_token_env under [gateway] in the host file")


def this_worker_addresses(host: HostConfig) -> set[str]:
    """The ``host:port`` the gateway may know this host's server by (mtptui.gateway.match.worker_addresses)."""
    from mtptui.fleet.hosts import ssh_names

    names = ssh_names(host) if host.ssh is not None else []
    return worker_addresses(host.api_url, gateway_config(host).url, names)


async def this_worker(gateway: Gateway, host: HostConfig, workers: list[Worker] | None = None) -> Worker:
    """This host's worker in the gateway's list (``workers`` when already read): ``worker_url`` when the host
    file gives it, else by address."""
    config = gateway_config(host)
    listed = await gateway.workers() if workers is None else workers
    return find_worker(listed, gateway.label, worker_url=config.worker_url, addresses=this_worker_addresses(host))
