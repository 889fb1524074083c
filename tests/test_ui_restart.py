"""The restart flow in the UI: confirm dialog, cancel changes nothing, restore and rollback against the real
simulated server through the local transport (a tmp demo run), readonly refusals."""

from __future__ import annotations

from pathlib import Path


from mtptui.demo.run import DemoRun
from mtptui.ops.profile_save import with_profile
from mtptui.ui import messages
from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.screens.profile_pick import ProfilePickScreen
from mtptui.ui.widgets.restart_panel import RestartPanel
from tests.ui_fixtures.support import SIZE, fixed_clock, make_app, settle, wait_until


def of_type(posted: list, kind: type) -> list:
    return [m for m in posted if isinstance(m, kind)]


def demo_app(run: DemoRun, host=None):
    from mtptui.ops.connect import open_session
    from mtptui.ui.app import AppContext, MtpApp

    host = host or run.host
    session = open_session(host)
    context = AppContext("demo", host=host, session=session, profile_store=run.profile_store())
    return MtpApp(run.feed(session, with_load=False), context, clock=fixed_clock, cursor_blink=False, keymap={})


def plain(renderable) -> str:
    from rich.console import Console

    console = Console(width=160, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def running_pid(run: DemoRun) -> int:
    return int(run.pid_path.read_text().strip())


async def confirm_dialog(pilot, app) -> ConfirmScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=30)
    return app.screen


async def test_cancel_changes_nothing_and_restore_restarts_with_the_known_good_profile(demo_run) -> None:
    app = demo_app(demo_run)
    posted: list = []
    before = running_pid(demo_run)
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await pilot.press("R")
        dialog = await confirm_dialog(pilot, app)
        body = plain(dialog.body)
        assert "--speculative-num-steps" in body and "Restart demo (process) with profile restored" in body
        await pilot.press("n")
        await wait_until(pilot, lambda: of_type(posted, messages.RestartCancelled))
        assert not isinstance(app.screen, ConfirmScreen) and running_pid(demo_run) == before
        assert not of_type(posted, messages.RestartProgress)
        await pilot.press("R")
        await confirm_dialog(pilot, app)
        await pilot.press("y")
        await wait_until(pilot, lambda: of_type(posted, messages.RestartFinished), timeout=90)
        result = of_type(posted, messages.RestartFinished)[0].result
        steps = [m.event.step for m in of_type(posted, messages.RestartProgress)]
        panel = app.screen.query_one(RestartPanel)
        assert result.outcome == "ready", result.summary()
        assert {"stopping", "starting", "loading", "capturing_graphs", "ready"} <= set(steps)
        assert running_pid(demo_run) != before and panel.has_class("-ok")
        assert "restarted" in plain(panel.render())
    argv = Path(f"/proc/{running_pid(demo_run)}/cmdline").read_bytes().split(b"\0")
    assert argv[argv.index(b"--speculative-num-steps") + 1] == b"3"


async def test_a_crashing_profile_is_rolled_back_and_reported(demo_run) -> None:
    restored = demo_run.host.profile("restored")
    flags = {k: v for k, v in restored.flags.items() if k != "mamba-scheduler-strategy"}
    host = with_profile(demo_run.host, "nobuf", restored.model_copy(update={"flags": flags}))
    app = demo_app(demo_run, host)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfilePickScreen))
        await pilot.press("home", "enter")  # profiles sorted: nobuf first
        dialog = await confirm_dialog(pilot, app)
        body = plain(dialog.body)
        assert "extra_buffer" in body and "SGLang would stop at start" in body
        await pilot.press("y")
        await wait_until(pilot, lambda: of_type(posted, messages.RestartFinished), timeout=120)
        result = of_type(posted, messages.RestartFinished)[0].result
        panel = app.screen.query_one(RestartPanel)
        banner = plain(panel.render())
        assert result.outcome == "rolled_back", result.summary()
        assert panel.has_class("-failed") and "rolled back to the previous command, ready again" in banner
        assert "extra_buffer" in banner
        assert any(n.severity == "error" and "rolled back" in n.message for n in app._notifications)
    argv = Path(f"/proc/{running_pid(demo_run)}/cmdline").read_bytes().split(b"\0")
    assert argv[argv.index(b"--speculative-num-steps") + 1] == b"1"  # the bad redeploy again, as before


async def test_restarts_are_refused_under_readonly_without_a_dialog() -> None:
    app, _ = make_app(readonly=True)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await settle(pilot, app)
        await pilot.press("R", "r", "d")
        await pilot.pause()
        await pilot.press("a")  # apply from the diff screen
        await pilot.pause()
        refused = of_type(posted, messages.ActionRefused)
        assert [m.action for m in refused] == ["restore", "restart", "restart"]
        assert not any(isinstance(s, (ConfirmScreen, ProfilePickScreen)) for s in app.screen_stack)
