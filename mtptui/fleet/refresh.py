"""One refresh of the fleet from what it reads: Prometheus's targets and figures (mtptui.fleet.collect), a
gateway's workers (mtptui.fleet.gateway_source), or both; the CLI's ``--once`` and the fleet screen use it."""

from __future__ import annotations

import time

from mtptui.fleet.collect import collect
from mtptui.fleet.gateway_source import read_workers, with_workers
from mtptui.fleet.hosts import HostEntry
from mtptui.fleet.prom import Prometheus
from mtptui.fleet.rows import Snapshot
from mtptui.fleet.settings import FleetSettings


async def refresh(settings: FleetSettings, hosts: dict[str, HostEntry], at: float | None = None) -> Snapshot:
    if settings.url is not None:
        async with Prometheus(settings.url, settings.auth) as prom:
            snapshot = await collect(prom, settings, hosts, at)
    else:
        snapshot = Snapshot(None, time.time() if at is None else at, settings.window_s, settings.history_s, "",
                            settings.window_s / 2, [])
    if settings.gateway is not None:
        snapshot = with_workers(snapshot, await read_workers(settings.gateway), settings.gateway, hosts)
    return snapshot
