"""Every screen and dialog at 160x48, 100x30 and 80x24: the picture, and the essentials each size must keep.

One app run per screen state: it is set up at 160x48, then the terminal is resized to each size in turn, so a
live resize is tested too. At each size the screen is compared with its snapshot
(tests/__snapshots__/test_ui_sizes/<test>[<size>].svg) and its essentials are checked by query: the log, the
`? Help` key, the dialog buttons, the flags form's inputs, the bench results are on screen, not cut off.
Review changed SVGs before accepting them, as in tests/test_ui_snapshots.py.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

import pytest
from textual.widget import Widget
from textual.widgets import Button, Footer, Input

from mtptui.bench.compare import compare
from mtptui.ops.bench_run import BenchOutcome
from mtptui.ops.feed.items import GpuReading, GpuStat
from mtptui.remote.hostkeys import HostKeyQuestion
from mtptui.ui import messages
from mtptui.ui.bench_state import BenchSettings
from mtptui.ui.hostkey import HostKeyDialogs
from mtptui.ui.widgets.restart_panel import restart_dialog
from mtptui.ui.screens.confirm import ConfirmScreen
from tests.test_ui_bench_snapshots import BAD, GOOD, open_bench, samples_of, show
from tests.test_ui_fleet_snapshots import fleet_app, shown
from tests.test_ui_ops_snapshots import PROGRESS, demo_plan, events, show_restart
from tests.test_ui_snapshots import recorded_lines
from tests.ui_fixtures.support import demo_status, make_app, settle, steady_screen, wait_until

pytestmark = pytest.mark.usefixtures("utc")  # the fleet screen's clock reads in UTC

SIZES = ((160, 48), (100, 30), (80, 24))
Check = Callable[[object], None]


async def at_every_size(app, svg, run_before: Callable[..., Awaitable[None]], *checks: Check) -> None:
    """Run ``app``, set it up, then at each size: check the essentials and compare the screen with its snapshot."""
    shots: dict[str, str] = {}
    async with app.run_test(size=SIZES[0]) as pilot:
        await run_before(pilot)
        for width, height in SIZES:
            await pilot.resize_terminal(width, height)
            shot = await steady_screen(pilot)
            for check in checks:
                check(app)
            shots[f"{width}x{height}"] = shot
    mismatched = [size for size, shot in shots.items() if not svg(name=size) == shot]
    assert not mismatched, f"screens differ from their snapshots at {', '.join(mismatched)}"


# The essentials ---------------------------------------------------------------------------------------------


def on_screen(widget: Widget, *, rows: int = 1) -> None:
    """``widget`` is shown whole (at least ``rows`` high) within the terminal."""
    screen = widget.screen.region
    region = widget.region
    assert widget.display and widget.visible, f"{widget!r} is hidden"
    assert region.height >= rows, f"{widget!r} is {region.height} rows high at {screen.size}, wants {rows}"
    assert screen.contains_region(region), f"{widget!r} at {region} is cut off by the {screen.size} screen"


def help_key(app) -> None:
    """The footer shows `? Help`, whole."""
    footer = app.screen.query_one(Footer)
    keys = [key for key in footer.query("FooterKey") if key.action == "help"]
    assert keys, "no Help key in the footer"
    on_screen(keys[0])
    assert footer.region.contains_region(keys[0].region), "the Help key is scrolled out of the footer"


def log_pane(app, rows: int = 10) -> None:
    """The dashboard's log is at least 10 rows high below the header and the health line."""
    on_screen(app.screen_stack[0].query_one("#log"), rows=rows)


def starts_on_screen(widget: Widget, rows: int) -> None:
    """The first ``rows`` rows of a scrolling ``widget`` are on screen (the rest is a scroll away)."""
    top = widget.region.y
    assert widget.display and 0 <= top and top + rows <= widget.screen.region.bottom, \
        f"{widget!r} at {widget.region} does not show its first {rows} rows"


def dialog_buttons(app) -> None:
    """Every button of the dialog is on screen."""
    for button in app.screen.query(Button):
        on_screen(button, rows=1)


# The dashboard ----------------------------------------------------------------------------------------------


async def test_dashboard_serving(svg) -> None:
    app, _ = make_app()
    await at_every_size(app, svg, lambda pilot: settle(pilot, app), log_pane, help_key)


async def test_dashboard_readonly_light(svg) -> None:
    app, _ = make_app(theme="mtptui-light", readonly=True)

    def badge(app) -> None:
        assert "READONLY" in str(app.screen.query_one("#header").renderable), "the READONLY badge is cut off"

    await at_every_size(app, svg, lambda pilot: settle(pilot, app), log_pane, help_key, badge)


async def test_dashboard_during_startup(svg) -> None:
    gpus = (GpuStat(0, "NVIDIA RTX A6000", 39_120, 49_140, 0), GpuStat(1, "NVIDIA RTX A6000", 39_050, 49_140, 0))
    status = demo_status(started_at=None, launch_source="profile redeploy-1step")
    app, _ = make_app(recorded_lines(until="Capture draft cuda graph begin"), status=status,
                      extra=[GpuReading(gpus)])
    await at_every_size(app, svg, lambda pilot: settle(pilot, app), log_pane, help_key)


async def test_dashboard_crashed(svg, real_logs) -> None:
    status = demo_status(service_state="exited (status 1)", service_phase="failed", started_at=None)
    app, _ = make_app(real_logs / "25-nextn-mtp-crash-sigquit-scheduler-exception-tp3.log", status=status)
    await at_every_size(app, svg, lambda pilot: settle(pilot, app), log_pane, help_key)


async def test_dashboard_finding_in_the_log(svg) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("slash", *"accept len: 1.7")
        await pilot.pause()

    def prompt(app) -> None:
        on_screen(app.screen.query_one("#log-prompt"))

    await at_every_size(app, svg, run_before, lambda app: log_pane(app, rows=9), prompt, help_key)


async def test_dashboard_not_connected(svg) -> None:
    from mtptui.ops.feed.items import Connection

    app, _ = make_app(extra=[Connection("reconnecting", "cannot connect to gpu-box port 22: Connection refused",
                                       30.0)])

    def said(app) -> None:
        line = app.screen.query_one("#health").renderable.plain
        assert "not connected: cannot connect to gpu-box" in line, line
        keys = [key for key in app.screen.query_one(Footer).query("FooterKey") if key.action == "reconnect"]
        assert keys and keys[0].display, "the reconnect key is not in the footer"

    await at_every_size(app, svg, lambda pilot: settle(pilot, app), log_pane, help_key, said)


async def test_restart_in_progress(svg) -> None:
    app, _ = make_app()
    await at_every_size(app, svg, lambda pilot: show_restart(pilot, app, PROGRESS), log_pane, help_key,
                        lambda app: on_screen(app.screen.query_one("#restart"), rows=4))


async def test_restart_rolled_back(svg) -> None:
    from mtptui.ops.restart.run import RestartResult

    app, _ = make_app()
    crash = events(("crashed", "crashed: ValueError: Speculative decoding for Qwen3_5ForCausalLM needs "
                    "--mamba-scheduler-strategy extra_buffer", {}), ("rolling_back", "rolling back", {}))
    result = RestartResult("demo", "nobuf", "process", "rolled_back",
                           reason="ValueError: Speculative decoding for Qwen3_5ForCausalLM needs "
                                  "--mamba-scheduler-strategy extra_buffer", pid=5151, elapsed_s=21.4)
    await at_every_size(app, svg, lambda pilot: show_restart(pilot, app, PROGRESS + crash, result), log_pane,
                        help_key, lambda app: on_screen(app.screen.query_one("#restart"), rows=4))


# Dialogs ----------------------------------------------------------------------------------------------------


async def test_help_screen(svg) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("question_mark")

    def help_body(app) -> None:
        on_screen(app.screen.query_one("#help-body"), rows=5)

    await at_every_size(app, svg, run_before, help_body)


async def test_log_line_in_full(svg) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("g", "enter")  # the first line: SGLang's server_args, ~11,000 characters
        await wait_until(pilot, lambda: type(app.screen).__name__ == "LogLineScreen")

    def body(app) -> None:
        on_screen(app.screen.query_one("#explain-body"), rows=5)

    await at_every_size(app, svg, run_before, body)


async def test_restart_confirm_dialog(svg) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        app.push_screen(restart_dialog(demo_plan()))
        await pilot.pause(0.3)

    await at_every_size(app, svg, run_before, dialog_buttons)


async def test_profile_picker(svg) -> None:
    app, _ = make_app()
    app.context.session = object()  # r asks for a profile only with a host session; the pick itself needs none

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("r")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ProfilePickScreen")

    def options(app) -> None:
        on_screen(app.screen.query_one("#pick-list"), rows=4)

    await at_every_size(app, svg, run_before, options)


async def test_quit_dialog_during_a_bench_run(svg) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await open_bench(pilot, app)
        app.screen.live.begin(BenchSettings())
        await pilot.press("escape", "q")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "QuitScreen")

    await at_every_size(app, svg, run_before, dialog_buttons)


async def test_host_key_dialog(svg) -> None:
    app, _ = make_app()
    dialogs = HostKeyDialogs()
    question = HostKeyQuestion("gpu-box.internal", 2222, "ssh-ed25519",
                               "SHA256:7q1vR8mE0cXlJm3pXw4P0wX2u9n0mI8bq5o3yUuQ1sI", "/home/ops/.ssh/known_hosts")

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        dialogs.app = app
        asyncio.get_running_loop().create_task(dialogs(question))
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))

    await at_every_size(app, svg, run_before, dialog_buttons)


# Ops screens ------------------------------------------------------------------------------------------------


async def test_diff_screen(svg, tmp_path) -> None:
    from tests.ui_fixtures.support import demo_host_with_unit

    app, _ = make_app()
    app.context.host = demo_host_with_unit(tmp_path)

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await pilot.press("d")
        await wait_until(pilot, lambda: bool(getattr(app.screen, "sides", None)))
        await pilot.pause()

    def table(app) -> None:
        on_screen(app.screen.query_one("#diff-table"), rows=6)

    await at_every_size(app, svg, run_before, table, help_key)


async def test_flags_form(svg) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await settle(pilot, app)
        await app.run_action("ops('flags', 'restored')")
        await pilot.pause(0.5)

    def inputs(app) -> None:
        form = app.screen.query_one("#flags-form")
        shown = [w for w in form.query("Input, Select") if form.region.contains_region(w.region)
                 and w.region.height > 0]
        assert len(shown) >= 4, f"only {len(shown)} inputs of the flags form are visible"
        for widget in shown[:4]:
            on_screen(widget)
        on_screen(app.screen.query_one("#flags-name", Input))

    await at_every_size(app, svg, run_before, inputs, help_key)


async def test_bench_idle(svg) -> None:
    app, _ = make_app()

    def form(app) -> None:
        for widget in app.screen.query("#bench-form Input, #bench-form Select"):
            on_screen(widget)
        on_screen(app.screen.query_one("#bench-start", Button))

    await at_every_size(app, svg, lambda pilot: open_bench(pilot, app), form, help_key)


async def test_bench_running(svg) -> None:
    from mtptui.bench.events import RequestDone, RunStarted
    from mtptui.bench.metrics import RequestMetrics

    app, _ = make_app()

    async def run_before(pilot) -> None:
        await open_bench(pilot, app)
        app.screen.live.begin(BenchSettings())
        first = GOOD["requests"][0]
        metrics = RequestMetrics(ok=True, output_tokens=first["output_tokens"], accept_len=first["accept_len"])
        await show(pilot, app, messages.BenchStarted(RunStarted("http://127.0.0.1:31000", 3, 1, 1,
                                                                GOOD["fingerprint"])),
                   messages.BenchRequestDone(RequestDone(0, "red-black-tree", False, metrics)),
                   messages.BenchSamples(samples_of(GOOD, 7.0)))

    def live(app) -> None:
        on_screen(app.screen.query_one("#bench-plot"), rows=8)
        on_screen(app.screen.query_one("#bench-progress"), rows=1)

    await at_every_size(app, svg, run_before, live, help_key)


async def test_bench_finished(svg) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await open_bench(pilot, app)
        screen = app.screen
        screen.live.begin(BenchSettings())
        screen.last = BenchSettings()
        screen.live.samples = samples_of(GOOD, 99.0)
        await show(pilot, app, messages.BenchFinished(BenchOutcome(GOOD, compare([GOOD], [BAD]))))

    def results(app) -> None:
        on_screen(app.screen.query_one("#bench-results"), rows=8)
        starts_on_screen(app.screen.query_one("#bench-compare"), rows=3)

    await at_every_size(app, svg, run_before, results, help_key)


async def test_fleet_screen(svg) -> None:
    app = fleet_app()

    def table(app) -> None:
        on_screen(app.screen.query_one("#fleet-table"), rows=6)

    await at_every_size(app, svg, lambda pilot: wait_until(pilot, lambda: shown(app)), table, help_key)


def test_the_throughput_title_keeps_its_figures_when_narrow() -> None:
    from mtptui.ui.widgets.throughput_pane import title_text

    assert title_text(34.04, None, 160) == "throughput · server gen tok/s · steady mean 34.0"
    assert title_text(34.04, None, 48) == "gen tok/s · steady mean 34.0"
    assert title_text(34.04, None, 30) == "gen tok/s · mean 34.0"
    assert title_text(54.0, 34.0, 48) == "gen tok/s · mean 54.0 · 34.0 before restart"
    assert title_text(None, None, 20) == "gen tok/s"
