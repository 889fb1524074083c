"""Dialogs and small terminals (issue 29, item 5): the confirm dialog's body scrolls under buttons that keep the
focus and says when there is more below; at 80 columns its changes read `flag: running → new`; a key copies or
saves the whole plan; the footer keeps the mission's keys at 80 and 100 columns and has no stray character."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Button, Footer, Static

from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.widgets.restart_panel import restart_dialog
from tests.test_ui_ops_snapshots import demo_plan
from tests.ui_fixtures.support import make_app, settle, wait_until


def body_of(app):
    return app.screen.query_one("#confirm-body")


def text_of(widget) -> str:
    return "\n".join(strip.text.rstrip() for strip in widget.render_lines(widget.region.reset_offset))


async def open_dialog(pilot, app) -> ConfirmScreen:
    await settle(pilot, app)
    dialog = restart_dialog(demo_plan())
    app.push_screen(dialog)
    await wait_until(pilot, lambda: app.screen is dialog)
    await pilot.pause(0.2)
    return dialog


async def test_the_body_scrolls_at_80x24_while_the_buttons_keep_the_focus() -> None:
    app, _ = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app)
        body, more = body_of(app), dialog.query_one("#confirm-more")
        await wait_until(pilot, lambda: body.max_scroll_y > 0 and "more below" in str(more.render()))
        focused = dialog.focused
        assert isinstance(focused, Button) and focused.id == "confirm-cancel"
        await pilot.press("down", "down")
        await wait_until(pilot, lambda: body.scroll_y == 2)
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: body.scroll_y > 2)
        await pilot.press("end")
        await wait_until(pilot, lambda: body.scroll_y == body.max_scroll_y and "more below" not in str(more.render()))
        await pilot.press("home")
        await wait_until(pilot, lambda: body.scroll_y == 0 and "more below" in str(more.render()))
        assert dialog.focused is focused and app.screen is dialog


async def test_at_80_columns_the_changes_read_flag_running_to_new() -> None:
    app, _ = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, app)
        shown = text_of(app.screen.query_one("#confirm-text", Static))
        for line in ("--speculative-num-steps: 1 → 3", "--max-running-requests: 1 → 16",
                     "--context-length: auto (from the model's config.json) → 131072",
                     "--tool-call-parser: unset → qwen3_coder"):
            assert line in shown, shown
    app, _ = make_app()
    async with app.run_test(size=(160, 48)) as pilot:  # where the table fits, it stays a table
        await open_dialog(pilot, app)
        shown = text_of(app.screen.query_one("#confirm-text", Static))
        assert "--speculative-num-steps: 1 → 3" not in shown and "running pid 4242" in shown


async def test_c_copies_and_s_saves_the_whole_plan() -> None:
    app, _ = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app)
        await pilot.press("c")
        assert app.clipboard == dialog.plain and "Commands:" in app.clipboard
        await pilot.press("s")
        await pilot.pause()
        saved = sorted((Path(os.environ["XDG_STATE_HOME"]) / "mtptui" / "plans").glob("restart-demo-restored-*.txt"))
        assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == dialog.plain + "\n"
        assert str(saved[0]) in list(app._notifications)[-1].message
        assert app.screen is dialog  # neither key answers the dialog


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_footer_keeps_the_mission_keys_and_drops_the_log_keys_first(size) -> None:
    app, _ = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.pause(0.2)
        footer = app.screen.query_one(Footer)
        shown = {key.action: key for key in footer.query("FooterKey") if key.display}
        for action in ("help", "ops('diff')", "ops('restore')", "ops('bench')"):
            assert action in shown and footer.region.contains_region(shown[action].region), action
        hidden = [key.action for key in footer.query("FooterKey") if not key.display]
        assert hidden and set(hidden) <= {"find", "filter", "wrap", "follow", "copy_line"}
        regions = [key.region for key in shown.values()]
        assert all(a.right <= b.x or b.right <= a.x for a in regions for b in regions if a is not b)  # none overlap


async def test_nothing_shows_after_the_palette_key() -> None:
    app, _ = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.pause(0.2)
        footer = app.screen.query_one(Footer)
        palette = next(key for key in footer.query("FooterKey") if key.has_class("-command-palette"))
        assert palette.region.right == footer.region.right  # the last cell is the palette key's, not a key below


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_bench_screen_has_a_key_for_its_workload_form_below_40_rows(size) -> None:
    from mtptui.bench.compare import compare
    from mtptui.ops.bench_run import BenchOutcome
    from mtptui.ui import messages
    from mtptui.ui.bench_state import BenchSettings
    from tests.test_ui_bench_snapshots import BAD, GOOD, open_bench, show

    app, _ = make_app()
    async with app.run_test(size=size) as pilot:
        await open_bench(pilot, app)
        screen = app.screen
        screen.live.begin(BenchSettings())
        screen.last = BenchSettings()
        await show(pilot, app, messages.BenchFinished(BenchOutcome(GOOD, compare([GOOD], [BAD]))))
        form, results = screen.query_one("#bench-top"), screen.query_one("#bench-results")
        assert not form.display or form.region.height == 0  # the results took the form's place
        footer = screen.query_one(Footer)
        assert any(key.action == "workload" and key.display for key in footer.query("FooterKey"))
        await pilot.press("w")
        await wait_until(pilot, lambda: form.region.height > 0 and results.region.height == 0)
        concurrency = screen.query_one("#bench-concurrency")
        assert screen.focused is concurrency
        await pilot.press("end", "backspace", "4", "w")  # typed into the field; w (Input's) does not toggle back
        assert concurrency.value.endswith("4w")
        concurrency.value = "4"
        screen.set_focus(None)
        await pilot.press("w")
        await wait_until(pilot, lambda: results.region.height > 0)
