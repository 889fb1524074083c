"""Snapshots of the ops screens from deterministic state: flags form (clean, and the draft-tokens error inline),
the diff screen, the restart confirm dialog, the restart banner in progress and after a rollback.

Recorded demo log, fixed clock; plans and restart events are built from the demo host file (configs/demo.toml),
so every path and pid in them is fixed. Review changed SVGs before accepting them.
"""

from __future__ import annotations

from pathlib import Path

from mtptui.ops.progress import RestartEvent
from mtptui.ops.restart.plan import Previous, RestartPlan, Step
from mtptui.ops.restart.run import RestartResult
from mtptui.remote.local import LocalTransport
from mtptui.remote.process import ProcessManager, stop_group_command
from mtptui.engines.sglang.flags import FlagSet, diff_flagsets, render_argv
from mtptui.engines.sglang.lint import lint_flagset
from tests.ui_fixtures.support import SIZE, demo_host, demo_host_with_unit, demo_status, make_app, settle



def demo_plan() -> RestartPlan:
    host = demo_host()
    target = FlagSet.from_profile(host.profile("restored"), host.sglang_version)
    running = demo_status().launch
    manager = ProcessManager(LocalTransport(), host.server, port=31000)
    steps = [Step("stopping", stop_group_command(4242, 4242, 30.0)),
             Step("starting", manager.launch_command(target.entry_argv + render_argv(target), target.env,
                                                       "/tmp/mtptui-demo"), starts=True)]
    diff = diff_flagsets([("running:pid 4242", running), ("profile:restored", target)])
    previous = Previous(True, argv=["python3", "-m", "sglang.launch_server"])
    return RestartPlan("demo", "restored", "process", target, diff, lint_flagset(target), steps, [], previous,
                       rollback=manager.rollback_summary(previous))


def events(*steps: tuple[str, str, dict]) -> list[RestartEvent]:
    return [RestartEvent(step, message, "target", float(i * 2), detail) for i, (step, message, detail) in
            enumerate(steps)]


PROGRESS = events(("plan", "restarting demo with profile restored", {}),
                  ("stopping", "stop the server (pid 4242, process group 4242)", {}),
                  ("starting", "the new profile is starting (pid 5151)", {"pid": 5151}),
                  ("loading", "loading shards 9/15", {"done": 9, "total": 15}))


async def show_restart(pilot, app, evs: list[RestartEvent], result: RestartResult | None = None,
                       gateway: bool = False) -> None:
    from mtptui.ui import messages

    await settle(pilot, app)
    panel = app.screen.restart_panel
    from mtptui.ui.restart_text import RestartView

    panel.show_view(RestartView("restored", gateway=gateway))
    panel.show_banner(True)
    for event in evs:
        panel.post_message(messages.RestartProgress(event))
    if result is not None:
        panel.post_message(messages.RestartFinished(result))
    await pilot.pause(0.2)
    app.clear_notifications()
    await pilot.pause()


def test_flags_form_clean(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await app.run_action("ops('flags', 'restored')")
        await pilot.pause(0.5)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_flags_form_draft_tokens_without_steps(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await app.run_action("ops('flags', 'restored')")
        await pilot.pause(0.3)
        app.screen.query_one("#f-speculative-num-steps").value = ""
        await pilot.pause(0.6)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_diff_screen(snap_compare, tmp_path: Path) -> None:
    app, _ = make_app()
    app.context.host = demo_host_with_unit(tmp_path)

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("d")
        await pilot.pause(0.5)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_restart_confirm_dialog(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        from mtptui.ui.widgets.restart_panel import restart_dialog

        app.push_screen(restart_dialog(demo_plan()))
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_restart_in_progress(snap_compare) -> None:
    app, _ = make_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: show_restart(pilot, app, PROGRESS))


DRAINING = events(("plan", "restarting demo with profile restored", {}),
                  ("gateway_remove", "removing http://127.0.0.1:31000 from the gateway at http://127.0.0.1:30080", {}),
                  ("gateway_remove", "http://127.0.0.1:31000 is out of the gateway", {"status": "gone"}),
                  ("draining", "waiting until the server holds no request (at most 60 s)", {}),
                  ("draining", "3 requests in flight", {"in_flight": 3}))


def test_restart_in_progress_behind_a_gateway(snap_compare) -> None:
    """The gateway steps in the banner: out of the gateway and draining before the stop, back, ready, canary."""
    app, _ = make_app()
    assert snap_compare(app, terminal_size=SIZE,
                        run_before=lambda pilot: show_restart(pilot, app, DRAINING, gateway=True))


def test_restart_rolled_back(snap_compare) -> None:
    app, _ = make_app()
    crash = events(("crashed", "crashed: ValueError: Speculative decoding for Qwen3_5ForCausalLM needs "
                    "--mamba-scheduler-strategy extra_buffer", {}),
                   ("rolling_back", "rolling back", {}))
    result = RestartResult("demo", "nobuf", "process", "rolled_back",
                           reason="ValueError: Speculative decoding for Qwen3_5ForCausalLM needs "
                                  "--mamba-scheduler-strategy extra_buffer", pid=5151, elapsed_s=21.4)
    assert snap_compare(app, terminal_size=SIZE,
                        run_before=lambda pilot: show_restart(pilot, app, PROGRESS + crash, result))
