"""The fleet's workers from an SGLang gateway (SMG), as well as or instead of Prometheus's targets.

    [gateway]                              # in fleet.toml, or --gateway URL
    url = "http://gateway.internal:30080"
    bearer_token_file = "~/.config/mtptui/gateway.token"   # or bearer_token_env; never the token itself

One ``GET /workers`` per refresh. A worker whose address (``host:port`` of its URL) is a Prometheus row's
``instance`` adds its gateway status, load and health to that row; a worker Prometheus does not scrape becomes a
row of its own (job ``gateway``), with what the gateway knows: up when healthy, its SGLang version label, and the
server's running and waiting requests where the gateway's load monitor reports them. A worker that is not
``ready`` warns; one that failed, or that the gateway finds unhealthy, is down.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mtptui.config.files import HOST_FILE_LIMIT, read_bounded
from mtptui.config.models import GatewayConfig
from mtptui.errors import ConfigError
from mtptui.fleet.hosts import HostEntry
from mtptui.fleet.rows import Row, Snapshot, default_order
from mtptui.gateway.client import Gateway
from mtptui.gateway.credentials import read_token
from mtptui.gateway.match import address
from mtptui.gateway.workers import Worker

JOB = "gateway"
HINT = "bearer_token_file or bearer_token_env under [gateway] in fleet.toml"


@dataclass(frozen=True)
class GatewaySource:
    """A gateway to read workers from, its token read when the fleet starts (never stored)."""

    url: str
    token: str | None = None


def read_gateway(path: Path, url: str | None = None) -> GatewaySource | None:
    """``--gateway URL`` (the token still from fleet.toml), else fleet.toml's ``[gateway]``, else None."""
    table = _table(path)
    if url is None and table is None:
        return None
    try:
        config = GatewayConfig.model_validate({**(table or {}), **({"url": url} if url else {})})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = "unknown field" if first["type"] == "extra_forbidden" else first["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{'--gateway' if url and where == 'url' else path}: [gateway]{' ' + where if where else ''}"
                          f": {message}") from None
    if config.worker_url:
        raise ConfigError(f"{path}: [gateway] worker_url: the fleet lists every worker (it belongs in a host file)")
    return GatewaySource(config.url, read_token(config.bearer_token_file, config.bearer_token_env))


def _table(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = tomllib.loads(read_bounded(path, "fleet file", HOST_FILE_LIMIT).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    table = data.get("gateway")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: gateway must be a table ([gateway])")
    return table


async def read_workers(source: GatewaySource) -> list[Worker]:
    async with Gateway(source.url, token=source.token, token_hint=HINT) as gateway:
        return await gateway.workers()


def _health(worker: Worker) -> tuple[str, tuple[str, ...]]:
    if worker.status == "failed" or worker.healthy is False:
        return "down", (f"the gateway finds it {'unhealthy' if worker.healthy is False else 'failed'}",)
    if worker.status not in (None, "ready"):
        return "warn", (f"the gateway sends it no traffic ({worker.status})",)
    return "ok", ()


def _own_row(worker: Worker, key: str, hosts: dict[str, HostEntry]) -> Row:
    host = hosts.get(key)
    health, reasons = _health(worker)
    return Row(key, JOB, worker.healthy, version=worker.version, version_source="gateway label" if worker.version
               else None, running=worker.running, queued=worker.waiting, health=health, health_reasons=reasons,
               host=host[1].name if host else None, host_file=host[0] if host else None)


def _add_to(row: Row, worker: Worker) -> None:
    health, reasons = _health(worker)
    if health != "ok" and row.health != "down":
        row.health = "warn"
        row.health_reasons = (*row.health_reasons, *reasons)


def with_workers(snapshot: Snapshot, workers: list[Worker], source: GatewaySource,
                 hosts: dict[str, HostEntry]) -> Snapshot:
    """``snapshot`` (Prometheus's, or an empty one) with the gateway's status, load and health on every row it
    knows, and a row for each worker Prometheus does not scrape."""
    rows = {row.instance: row for row in snapshot.rows}
    for worker in workers:
        key = address(worker.url) or worker.url
        row = rows.get(key)
        if row is None:
            row = rows[key] = _own_row(worker, key, hosts)
        else:
            _add_to(row, worker)
        row.gateway_status, row.gateway_load, row.gateway_healthy = worker.status, worker.load, worker.healthy
    snapshot.rows = default_order(list(rows.values()))
    snapshot.gateway = source.url
    return snapshot
