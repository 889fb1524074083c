"""The dashboard's gateway pane on the lab host: smg on the host (reached only through the SSH session) in front of
the lab's server; the pane lists its workers with this server marked, and says so when the gateway goes away."""

from __future__ import annotations

import pytest
import tomli_w
import tomllib

from tests.gateway_lab import GATEWAY_PORT, lab_gateway_lists, start_lab_gateway, stop_lab_gateway
from tests.lab import API_PORT
from tests.test_lab_dashboard import dashboard
from tests.ui_fixtures.support import SIZE, wait_until

pytestmark = pytest.mark.ssh


def pane_text(app) -> str:
    pane = app.screen.query_one("#gateway")
    return f"{pane.border_title}\n{pane.border_subtitle}\n{_plain(pane.renderable)}"


def _plain(renderable) -> str:
    from rich.console import Console

    console = Console(width=140, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


async def test_the_gateway_pane_lists_the_workers_and_marks_this_server(lab_process) -> None:
    server = f"http://127.0.0.1:{API_PORT}"
    lab_process.wait_ready()
    gateway = start_lab_gateway(lab_process, [server])
    lab_gateway_lists(lab_process, {server: "ready"})
    data = tomllib.loads(lab_process.path.read_text())
    data["gateway"] = {"url": f"http://127.0.0.1:{GATEWAY_PORT}"}
    lab_process.path.write_text(tomli_w.dumps(data))
    app = dashboard(lab_process)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.gateway is not None and app.live.gateway.workers, timeout=60)
        app.screen.paint(everything=True)
        await pilot.pause()
        pane = app.screen.query_one("#gateway")
        assert pane.display and pane.has_class("-shown") and pane.region.height == 4  # one worker: header + row
        shown = pane_text(app)
        assert f"gateway · http://127.0.0.1:{GATEWAY_PORT} · SMG (sglang-router 0.3 or newer)" in shown
        assert "1 of 1 workers ready" in shown and f"▶ {server}" in shown and " ready " in shown
        stop_lab_gateway(gateway)
        await wait_until(pilot, lambda: app.live.gateway.problem is not None, timeout=60)
        app.screen.paint(everything=True)
        await pilot.pause()
        assert "cannot reach the gateway at http://127.0.0.1:30080" in pane_text(app)


async def test_a_host_without_a_gateway_has_no_gateway_pane(lab_process) -> None:
    app = dashboard(lab_process)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.server.phase == "ready", timeout=90)
        assert not app.screen.query_one("#gateway").display and app.live.gateway is None
