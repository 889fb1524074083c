"""The restart dialog offers the hand-back of a hand-started server to the unit it replaced (``u`` toggles it, and
a yes runs the plan shown), says why when the named unit cannot take it, and has no ``u`` otherwise; the host
file's unit is the only source, and `--to-unit` on a host that has none is one sentence. Plans built by hand: the
lab's tests (tests/test_lab_handback.py) run them."""

from __future__ import annotations

import pytest
from rich.console import Console

from mtptui.config.models import ProcessServer, SystemdServer
from mtptui.errors import UserError
from mtptui.ops.restart.plan import Previous, RestartPlan, Step
from mtptui.ops.restart.handback import HandBackPlan, host_file_advice, offers_handback, replaced_unit
from mtptui.remote.local import LocalTransport
from mtptui.remote.process import ProcessManager
from mtptui.remote.systemd import SystemdManager
from mtptui.engines.sglang.flags import FlagSet
from mtptui.ui.screens.restart_confirm import RestartConfirmScreen
from tests.ui_fixtures.support import SIZE, demo_host, make_app, settle

UNIT = "sglang-qwen.service"
SERVER = ProcessServer(log_file="/srv/sglang.log", pid_file="/srv/sglang.pid", unit=UNIT)


def plans() -> tuple[RestartPlan, HandBackPlan]:
    process = ProcessManager(LocalTransport(), SERVER)
    unit = SystemdManager(LocalTransport(), SystemdServer(unit=UNIT))
    relaunch = [Step("starting", process.launch_command(["python3", "-m", "sglang.launch_server"], {}), starts=True)]
    restart = RestartPlan("gpu", "restored", "process", FlagSet(), None, [], relaunch, [], Previous(True))
    steps = [Step("write_unit", unit.write_command(f"/etc/systemd/system/{UNIT}", "[Service]\n", None)),
             Step("reload", unit.daemon_reload_command()), Step("starting", unit.restart_command(), starts=True)]
    handback = HandBackPlan("gpu", "restored", "process → systemd", FlagSet(), None, [], steps,
                            [Step("enabled", unit.enable_command())], Previous(True), unit=UNIT)
    return restart, handback


def text(screen: RestartConfirmScreen) -> str:
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(screen.body)
    return console.export_text()


def title(screen: RestartConfirmScreen) -> str:
    return str(screen.query_one("#confirm-dialog").border_title)


async def test_u_hands_the_server_back_to_its_unit_and_u_again_does_not() -> None:
    restart, handback = plans()
    app, _ = make_app()
    answers: list = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        dialog = RestartConfirmScreen(restart, handback=handback)
        app.push_screen(dialog, answers.append)
        await pilot.pause(0.2)
        assert f"this hand-started server replaced {UNIT}: pressing u hands it back to the unit" in text(dialog)
        assert title(dialog) == "Restart gpu with profile restored?" and dialog.plan is restart
        await pilot.press("u")
        await pilot.pause(0.1)
        assert dialog.plan is handback and title(dialog) == f"Hand gpu's server back to {UNIT} with profile restored?"
        shown = text(dialog)
        assert f"systemctl enable {UNIT}" in shown and "pressing u restarts the hand-started server instead" in shown
        assert "the hand-started server instead" in dialog.plain and f"systemctl restart {UNIT}" in dialog.plain
        await pilot.press("u")
        await pilot.pause(0.1)
        assert dialog.plan is restart and f"systemctl enable {UNIT}" not in text(dialog)
        await pilot.press("u", "y")
        await pilot.pause(0.1)
    assert answers == [True] and dialog.plan is handback  # the yes runs the hand-back


async def test_without_an_offer_u_does_nothing_and_a_named_unit_that_cannot_take_it_says_why() -> None:
    restart, _ = plans()
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        plain = RestartConfirmScreen(restart)
        app.push_screen(plain)
        await pilot.pause(0.2)
        await pilot.press("u")
        await pilot.pause(0.1)
        assert plain.plan is restart and plain.check_action("hand_back", ()) is False
        assert "hand" not in text(plain).lower().replace("hand-started", "")
        app.pop_screen()
        why = f"no hand-back offered: {UNIT} is active on gpu: the server runs from its unit already"
        noted = RestartConfirmScreen(restart, handback_note=why)
        app.push_screen(noted)
        await pilot.pause(0.2)
        assert why in text(noted) and noted.check_action("hand_back", ()) is False


def test_the_unit_comes_from_the_host_file_or_the_command_line_else_one_sentence() -> None:
    host = demo_host()
    named = host.model_copy(update={"server": SERVER})
    assert replaced_unit(named) == UNIT and replaced_unit(named, "other.service") == "other.service"
    assert offers_handback(named) and not offers_handback(host)  # the demo names no unit: no offer, no noise
    with pytest.raises(UserError, match="names no unit its hand-started server replaced: set \\[server\\] unit"):
        replaced_unit(host)
    systemd = host.model_copy(update={"server": SystemdServer(unit=UNIT)})
    with pytest.raises(UserError, match=f"is the systemd unit {UNIT} already"):
        replaced_unit(systemd, UNIT)
    restart, handback = plans()
    assert host_file_advice(restart) is None and host_file_advice(restart, host) is None
    assert host_file_advice(restart, named) == (f"{host.name}'s server still runs by hand, outside {UNIT}: the "
                                                f"restart dialog's u (or mtptui restart {host.name} --to-unit) hands "
                                                f"it back to the unit and enables it")
    assert 'should say [server] manager = "systemd", unit = "sglang-qwen.service"' in (host_file_advice(handback) or "")
