"""The restart's confirm dialog offers to enable a unit that is not enabled (``e``, once the server is ready), and
says so; a plan without such an offer (a hand-started server, an enabled unit) has no ``e``. Plans built by hand:
no host needed."""

from __future__ import annotations

from rich.console import Console

from mtptui.config.models import SystemdServer
from mtptui.ops.restart.plan import Previous, RestartPlan, Step
from mtptui.remote.local import LocalTransport
from mtptui.remote.systemd import SystemdManager
from mtptui.engines.sglang.flags import FlagSet
from mtptui.ui.screens.restart_confirm import RestartConfirmScreen
from tests.ui_fixtures.support import SIZE, make_app, settle


def plan(offer: bool) -> RestartPlan:
    manager = SystemdManager(LocalTransport(), SystemdServer(unit="sglang-qwen.service"))
    steps = [Step("reload", manager.daemon_reload_command()), Step("starting", manager.restart_command(), starts=True)]
    return RestartPlan("gpu", "restored", "systemd", FlagSet(), None, [], steps, [], Previous(True),
                       enable_offer=Step("enabled", manager.enable_command()) if offer else None)


def text(screen: RestartConfirmScreen) -> str:
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(screen.body)
    return console.export_text()


async def test_e_enables_the_unit_once_ready_and_e_again_does_not() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        dialog = RestartConfirmScreen(plan(offer=True))
        app.push_screen(dialog)
        await pilot.pause(0.2)
        offer = "the unit is not enabled, so it would not start at boot; pressing e runs systemctl enable"
        assert offer in text(dialog)
        await pilot.press("e")
        await pilot.pause(0.1)
        assert [s.step for s in dialog.plan.finish] == ["enabled"]
        assert "3. systemctl enable sglang-qwen.service (once ready)" in text(dialog)
        await pilot.press("e")
        await pilot.pause(0.1)
        assert dialog.plan.finish == [] and "(once ready)" not in text(dialog)


async def test_no_offer_no_e() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        dialog = RestartConfirmScreen(plan(offer=False))
        app.push_screen(dialog)
        await pilot.pause(0.2)
        await pilot.press("e")
        await pilot.pause(0.1)
        assert dialog.plan.finish == [] and "not enabled" not in text(dialog)
        assert dialog.check_action("enable", ()) is False
