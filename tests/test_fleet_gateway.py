"""`mtptui fleet` with a gateway: the real gateway's workers (status, load, health), alone or on top of a real
Prometheus scraping the same replicas; a worker taken out of the rotation loses its gateway status."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from mtptui.gateway.client import Gateway
from tests.gateway_lab import wait_workers
from tests.prometheus import start_prometheus
from tests.simserver import ROOT


def fleet(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "fleet", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def fleet_json(*args: str) -> dict:
    done = fleet(*args, "--once", "--json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def test_the_gateway_alone_gives_a_row_per_worker(gateway_rig_module) -> None:
    rig = gateway_rig_module
    found = fleet_json("--gateway", rig.url)
    assert found["prometheus"] is None and found["gateway"] == rig.url
    rows = {row["instance"]: row for row in found["instances"]}
    assert sorted(rows) == sorted(f"127.0.0.1:{sim.port}" for sim in rig.sims)
    for row in rows.values():
        assert (row["job"], row["up"], row["health"], row["gateway_status"], row["gateway_healthy"]) == \
            ("gateway", True, "ok", "ready", True)
        assert row["gateway_load"] == 0 and row["version"] == "0.5.12.post1"


def test_on_prometheus_each_row_gets_its_workers_status_and_a_removed_one_none(gateway_rig_module, tmp_path) -> None:
    rig = gateway_rig_module
    targets = [f"127.0.0.1:{sim.port}" for sim in rig.sims]
    with start_prometheus(tmp_path / "prom", targets) as prom:
        prom.wait_until(lambda: set(prom.target_health().values()) == {"up"}, "both targets up")
        both = fleet_json("--prometheus", prom.url, "--gateway", rig.url)
        assert {row["instance"]: row["gateway_status"] for row in both["instances"]} == dict.fromkeys(targets, "ready")
        assert {row["job"] for row in both["instances"]} != {"gateway"}  # the rows are Prometheus's

        try:
            asyncio.run(_in_rotation(rig.url, rig.sims[0].url, False))
            table = fleet("--prometheus", prom.url, "--gateway", rig.url, "--once")
        finally:
            asyncio.run(_in_rotation(rig.url, rig.sims[0].url, True))
    lines = table.stdout.splitlines()
    assert "gateway" in lines[0].split()
    removed = next(line for line in lines if targets[0] in line)
    kept = next(line for line in lines if targets[1] in line)
    assert " ready " in f" {kept} " and " ready " not in f" {removed} "  # gone from the gateway: no status
    assert wait_workers(rig.url, {sim.url: "ready" for sim in rig.sims}, timeout=10)


async def _in_rotation(gateway_url: str, worker_url: str, wanted: bool) -> None:
    async with Gateway(gateway_url) as gateway:
        if wanted:
            await gateway.add(worker_url)
        else:
            await gateway.remove(next(w for w in await gateway.workers() if w.url == worker_url))


def test_an_unreachable_gateway_is_one_sentence() -> None:
    done = fleet("--gateway", "http://127.0.0.1:9", "--once")
    assert done.returncode == 1 and done.stderr == "mtptui: cannot reach the gateway at http://127.0.0.1:9: " \
                                                   "connection refused\n"


async def test_the_fleet_screen_shows_the_gateways_workers_in_its_own_column(gateway_rig_module) -> None:
    from textual.widgets import DataTable

    from mtptui.fleet.settings import load_settings
    from mtptui.ui.fleet.app import FleetApp
    from tests.ui_fixtures.support import SIZE, wait_until

    rig = gateway_rig_module
    app = FleetApp(load_settings(gateway=rig.url), {})

    def rows() -> list[list[str]]:
        table = app.screen.query_one(DataTable)
        return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]

    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(rows()) == 2, 30)
        titles = [str(column.label) for column in app.screen.query_one(DataTable).columns.values()]
        column = titles.index("gateway")
        assert "job" not in titles and {row[column] for row in rows()} == {"ready 0"}
        assert f"gateway {rig.url}" in str(app.screen.query_one("#fleet-header").content)
