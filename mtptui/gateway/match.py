"""Which of a gateway's workers is this host's server: the host file's ``worker_url``, else the worker whose
address is one of the host's (``worker_addresses``). A gateway knows a worker by the URL it was given, as the
gateway sees it: the API's own address, the SSH target or ssh_config's HostName with the API's port, or loopback
when the gateway runs on the GPU host itself."""

from __future__ import annotations

import ipaddress
from typing import Iterable
from urllib.parse import urlsplit

from mtptui.gateway.http import GatewayError
from mtptui.gateway.workers import Worker

SHOWN = 5


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def address(url: str) -> str | None:
    """``host:port`` of a URL (``[v6]:port``), lower-case, with the scheme's default port; None when it has none."""
    try:
        parts = urlsplit(url.strip() if "://" in url else f"http://{url.strip()}")
        port = parts.port or _default_port(parts.scheme)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if not host:
        return None
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def same_url(left: str, right: str) -> bool:
    """The same worker: scheme, host and port alike (a trailing slash or a path aside)."""
    def key(url: str) -> tuple[str, str | None]:
        return urlsplit(url.strip()).scheme.lower() or "http", address(url)
    return key(left) == key(right)


def loopback(host: str) -> bool:
    """127.x, ::1 and localhost, and the wildcard addresses a server listens on (0.0.0.0, ::)."""
    if host.lower() == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def _hostport(host: str, port: int) -> str:
    return f"[{host.lower()}]:{port}" if ":" in host else f"{host.lower()}:{port}"


def worker_addresses(api_url: str, gateway_url: str, ssh_names: Iterable[str] = ()) -> set[str]:
    """The ``host:port`` a gateway may know this host's server by.

    ``api_url`` and ``gateway_url`` are as the GPU host sees them; ``ssh_names`` are how the operator reaches
    the host (the SSH target, ssh_config's HostName). A server listening on loopback or a wildcard is known
    by the host's names from a gateway elsewhere, and by loopback from a gateway on the same host.
    """
    parts = urlsplit(api_url)
    port = parts.port or _default_port(parts.scheme)
    host = parts.hostname or "127.0.0.1"
    if not loopback(host):
        return {_hostport(host, port)}
    found = {_hostport(name, port) for name in ssh_names if name}
    if loopback(urlsplit(gateway_url).hostname or "") or not found:
        found |= {_hostport(name, port) for name in ("127.0.0.1", "localhost", "::1")}
    return found


def _listing(workers: list[Worker]) -> str:
    shown = ", ".join(w.url for w in workers[:SHOWN])
    more = f" and {len(workers) - SHOWN} more" if len(workers) > SHOWN else ""
    return f"it lists {shown}{more}" if workers else "it lists no worker"


def find_worker(workers: list[Worker], label: str, *, worker_url: str | None = None,
                addresses: Iterable[str] = ()) -> Worker:
    """This host's worker among ``workers``, or a GatewayError saying why none (or several) fit."""
    if worker_url:
        found = [w for w in workers if same_url(w.url, worker_url)]
        if not found:
            raise GatewayError(f"the gateway at {label} lists no worker at {worker_url} ({_listing(workers)})")
        return found[0]
    wanted = sorted(set(addresses))
    found = [w for w in workers if address(w.url) in wanted]
    if len(found) == 1:
        return found[0]
    if not found:
        raise GatewayError(f"the gateway at {label} lists no worker for this host (looked for "
                           f"{', '.join(wanted[:SHOWN])}; {_listing(workers)}): set worker_url under [gateway]")
    raise GatewayError(f"the gateway at {label} lists {len(found)} workers that could be this host "
                       f"({', '.join(w.url for w in found[:SHOWN])}): set worker_url under [gateway]")
