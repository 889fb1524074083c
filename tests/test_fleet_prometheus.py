"""`mtptui fleet` against a real Prometheus (Debian's package) scraping simulated servers of both SGLang versions
and different profiles every second (one under the sglang_ prefix, as a router re-exports it): the figures agree
with each server's truth, a stopped server goes down within two scrapes, and a query error or an unreachable
Prometheus is one sentence. Waits are on Prometheus's own state (its targets, its samples), never a sleep."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import pytest

from tests.fleet_lab import SERVERS, WINDOW_S, FleetLab, checks, fleet_json, fleet_rules, server_truth
from tests.prometheus import SCRAPE_S
from tests.simserver import free_port
from tests.ui_fixtures.support import SIZE, wait_until

if TYPE_CHECKING:
    from mtptui.fleet.settings import FleetSettings


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FleetLab]:
    root = tmp_path_factory.mktemp("fleet")
    lab = FleetLab(root)
    try:
        lab.start_servers()
        with lab.prometheus(root / "prom", rules=fleet_rules()) as prom:
            lab.prom = prom
            lab.start_load()
            lab.wait_for_full_windows()
            yield lab
    finally:
        lab.stop()


@pytest.mark.parametrize(("args", "lag"), [((), 0.0), (("--recorded",), SCRAPE_S)], ids=["queries", "recorded"])
def test_once_json_lists_every_server_with_figures_within_its_truth(lab: FleetLab, args, lag) -> None:
    """The same bounds whether the figures are queried or read from the rules `--rules` printed (evaluated up
    to one evaluation interval before)."""
    if args:
        rules = lab.prom.api("/api/v1/rules")["groups"][0]["rules"]
        assert len(rules) == 13 and {r["health"] for r in rules} == {"ok"}
    done, data = fleet_json(lab.prom.url, *args)
    assert done.returncode == 0, done.stderr
    rows = {row["instance"]: row for row in data["instances"]}
    assert set(rows) == {lab.instance(n) for n in lab.sims} and data["prometheus"] == lab.prom.url
    for server in SERVERS:
        row = rows[lab.instance(server.name)]
        assert (row["up"], row["job"], row["version"], row["health"]) == (True, server.job, server.version, "ok")
        requests, pool = server_truth(lab.sims[server.name])
        outside = [c for c in checks(row, server, requests, pool, data["time"], lag) if not c.ok]
        assert not outside, f"{server.name}: {outside}"


def test_each_version_gives_accept_length_from_what_it_exports(lab: FleetLab) -> None:
    _, data = fleet_json(lab.prom.url)
    source = {row["instance"]: (row["version_source"], row["accept_len_source"]) for row in data["instances"]}
    assert source[lab.instance("restored-0.5.12")] == ("metric families", "spec_accept_length gauge")
    assert source[lab.instance("redeploy-0.5.23")] == ("metric families", "spec_verify_calls_total")
    assert source[lab.instance("nospec-0.5.23")] == ("metric families", None)


def test_match_narrows_targets_and_queries(lab: FleetLab) -> None:
    port = lab.sims["redeploy-0.5.23"].port
    _, data = fleet_json(lab.prom.url, "--match", f'instance="127.0.0.1:{port}"')
    assert [row["instance"] for row in data["instances"]] == [f"127.0.0.1:{port}"]
    _, none = fleet_json(lab.prom.url, "--match", 'job="node"')
    assert none["instances"] == []


def test_once_without_json_prints_a_table_worst_first(lab: FleetLab) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "fleet", "--prometheus", lab.prom.url, "--once",
                           "--window", f"{WINDOW_S:g}s"], capture_output=True, text=True, timeout=60)
    head, *lines = done.stdout.splitlines()
    assert done.returncode == 0 and head.split()[:4] == ["instance", "job", "state", "version"]
    assert sorted(line.split()[1] for line in lines) == sorted(lab.instance(n) for n in lab.sims)
    assert all(line.startswith("●") and line.split()[3] == "up" for line in lines)
    assert sorted(line.split()[2] for line in lines) == ["sglang", "sglang", "sglang-reexport"]


def test_a_query_prometheus_refuses_is_one_sentence(lab: FleetLab) -> None:
    done, _ = fleet_json(lab.prom.url, "--match", 'job=~"(?=sglang)"')  # Python accepts look-ahead, RE2 does not
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"Prometheus at {lab.prom.url} refused the" in done.stderr and "bad_data" in done.stderr


def test_an_unreachable_prometheus_is_one_sentence(lab: FleetLab) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    done, _ = fleet_json(url)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"mtptui: cannot reach Prometheus at {url}: connection refused\n"


# The fleet screen, on the same Prometheus.

def host_file(root: Path, name: str, sim) -> Path:
    """A host profile for a simulated server on this machine (no [ssh]: the local transport)."""
    path = root / f"{name}.toml"
    path.write_text(f'''name = "{name}"
sglang_version = "{sim.version}"
api_url = "{sim.url}"
[server]
manager = "process"
log_file = "{sim.log_path}"
[log]
kind = "file"
path = "{sim.log_path}"
''')
    return path


def fleet_settings(lab: FleetLab, **options) -> "FleetSettings":
    from mtptui.fleet.settings import load_settings

    return load_settings(url=lab.prom.url, window=f"{WINDOW_S:g}s", **options)


def table_rows(app) -> list[list[str]]:
    from textual.widgets import DataTable

    table = app.screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def rows_shown(pilot, app, count: int) -> None:
    await wait_until(pilot, lambda: len(table_rows(app)) == count and app.screen.updated_at is not None, 30)


async def test_the_screen_shows_every_server_and_sorts_and_filters(lab: FleetLab) -> None:
    from mtptui.ui.fleet.app import FleetApp

    app = FleetApp(fleet_settings(lab), {})
    async with app.run_test(size=SIZE) as pilot:
        await rows_shown(pilot, app, 3)
        rows = table_rows(app)
        assert {r[1] for r in rows} == {lab.instance(n) for n in lab.sims}
        assert {r[0] for r in rows} == {"●"} and all(r[3].startswith("up") for r in rows)
        versions = {r[1]: r[4] for r in rows}
        assert versions[lab.instance("restored-0.5.12")] == "0.5.12.post1"
        sparklines = [r[6].strip() for r in rows]
        assert all(line and set(line) <= set("▁▂▃▄▅▆▇█ ") for line in sparklines)
        await pilot.press("s")  # by instance
        assert [r[1] for r in table_rows(app)] == sorted(r[1] for r in rows)
        await pilot.press("s")  # by tok/s, most first
        speeds = [float(r[5]) for r in table_rows(app)]
        assert speeds == sorted(speeds, reverse=True)
        await pilot.press("slash", *"0.5.23")
        assert {r[4] for r in table_rows(app)} == {"0.5.23"} and len(table_rows(app)) == 2
        await pilot.press("escape")
        assert len(table_rows(app)) == 3 and "sort tok/s" in str(app.screen.query_one("#fleet-header").content)


async def test_enter_without_a_host_profile_says_how_to_add_one(lab: FleetLab) -> None:
    from mtptui.ui.fleet.app import FleetApp

    app = FleetApp(fleet_settings(lab), {})
    async with app.run_test(size=SIZE) as pilot:
        await rows_shown(pilot, app, 3)
        instance = table_rows(app)[0][1]
        await pilot.press("enter")
        notes = [n.message for n in app._notifications]
        assert notes == [f'no host profile for {instance}: add prometheus_instance = "{instance}" to its host file '
                         f"(or an api_url with this address) to open its dashboard with Enter"]
        assert app.return_value is None and app.is_running


def test_enter_hands_over_to_the_hosts_dashboard_read_only_and_back(lab: FleetLab, tmp_path: Path) -> None:
    """The command's own loop, with every app driven through Textual's pilot instead of a terminal."""
    from mtptui.cli.commands.fleet import host_index, screen_loop
    from mtptui.ui.app import MtpApp
    from mtptui.ui.fleet.app import FleetApp
    from mtptui.ui.widgets.header_bar import HeaderBar

    sim = lab.sims["restored-0.5.12"]
    host_file(tmp_path, "sim-restored", sim)
    hosts = host_index(str(tmp_path))
    seen: list[str] = []

    async def drive(app):
        async with app.run_test(size=SIZE) as pilot:
            if isinstance(app, FleetApp) and seen:  # back from the dashboard: as it was left, filter and row
                await rows_shown(pilot, app, 1)
                seen.append(f"fleet again at {app.screen.current().instance}")
                await pilot.press("q")
            elif isinstance(app, FleetApp):
                await rows_shown(pilot, app, 3)
                await pilot.press("slash", *"sim-restored", "enter")
                seen.append(f"fleet row {app.screen.current().host}")
                await pilot.press("enter")
            else:
                assert isinstance(app, MtpApp)
                header = app.screen.query_one(HeaderBar)
                await wait_until(pilot, lambda: "SGLang 0.5.12.post1" in str(header.text(app.live)), 30)
                assert "READONLY" in str(header.text(app.live))
                seen.append(f"dashboard {app.context.host_label} readonly={app.readonly}")
                await pilot.press("q")
        return app.return_value

    assert screen_loop(fleet_settings(lab), hosts, str(tmp_path), None, runner=lambda app: asyncio.run(drive(app))) == 0
    assert seen == ["fleet row sim-restored", "dashboard sim-restored readonly=True",
                    f"fleet again at {lab.instance('restored-0.5.12')}"]


async def test_an_unreachable_prometheus_is_one_sentence_on_the_screen(lab: FleetLab) -> None:
    from mtptui.fleet.settings import load_settings
    from mtptui.ui.fleet.app import FleetApp

    url = f"http://127.0.0.1:{free_port()}"
    app = FleetApp(load_settings(url=url), {})
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.screen.error is not None, 30)
        sentence = f"cannot reach Prometheus at {url}: connection refused"
        assert app.screen.error == sentence and [n.message for n in app._notifications] == [sentence]
        assert sentence in str(app.screen.query_one("#fleet-header").content)


def test_a_stopped_server_goes_down_within_two_scrapes_and_loses_its_figures(lab: FleetLab) -> None:
    name = "nospec-0.5.23"
    instance = lab.instance(name)
    gone = lab.stop_server(name)

    def after_stop() -> list[float]:
        return [v for t, v in lab.prom.samples(f'up{{instance="{instance}"}}', 30).get(instance, []) if t > gone]
    lab.prom.wait_until(lambda: len(after_stop()) >= 2, "two scrapes of the stopped server")
    assert 0.0 in after_stop()[:2]
    _, data = fleet_json(lab.prom.url)
    row = next(r for r in data["instances"] if r["instance"] == instance)
    assert (row["up"], row["health"], row["version"]) == (False, "down", "0.5.23")
    assert row["last_error"] and row["health_reasons"] == [f"down: {row['last_error']}"]
    figures = ("output_tok_s", "accept_len", "running", "queued", "kv_usage", "ttft_p50_ms", "ttft_p99_ms",
               "itl_p99_ms", "request_rate", "error_rate")
    assert {row[f] for f in figures} == {None}
    others = [r for r in data["instances"] if r["instance"] != instance]
    assert len(others) == 2 and all(r["up"] and r["output_tok_s"] > 0 for r in others)
