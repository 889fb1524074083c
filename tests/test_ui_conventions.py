"""Pilot tests of the keys and conventions operators already know: pager keys and Esc in the log, --readonly keys
not offered, binding ids in the help, the screenshot's folder, and what `c` says about the clipboard."""

from __future__ import annotations

import html
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from textual.command import CommandPalette

from mtptui.ui import messages
from mtptui.ui.clipboard import SENT, copy_note
from mtptui.ui.screens.diff import DiffScreen
from mtptui.ui.screens.help import HelpScreen
from mtptui.ui.widgets.log_view import LogView
from tests.ui_fixtures.support import SIZE, ControlledFeed, decode_line, demo_status, make_app, settle, wait_until


def shown_keys(app) -> set[str]:
    """The descriptions the footer shows on the current screen."""
    return {a.binding.description for a in app.screen.active_bindings.values() if a.binding.show}


async def test_pager_keys_move_through_the_log() -> None:
    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=SIZE) as pilot:
        feed.push(decode_line(i) for i in range(300))
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        index = lambda: log.buffer.index_of(log.cursor)  # noqa: E731
        await pilot.press("k")
        assert not log.following and index() == 298
        await pilot.press("k", "k", "j")
        assert index() == 297
        await pilot.press("g")
        assert index() == 0 and log.scroll_y == 0
        half = max((log.scrollable_content_region.height - 1) // 2, 1)
        await pilot.press("ctrl+d")
        assert index() == half and log.scroll_y == half
        await pilot.press("ctrl+d", "ctrl+u")
        assert index() == half
        await pilot.press("G")
        assert log.following and log.cursor is None and log.scroll_y == log.max_scroll_y


async def test_escape_clears_the_find_and_only_then_is_it_a_key() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        await pilot.press("slash", *"decode", "enter")
        assert log.find_text == "decode" and "find" in str(log.border_subtitle)
        await pilot.press("escape")
        assert log.find_text == "" and "find" not in str(log.border_subtitle)
        assert not any(a.binding.id == "log.clear-find" for a in app.screen.active_bindings.values())


async def test_readonly_keys_are_not_offered_but_still_say_why_when_pressed() -> None:
    app, _ = make_app(readonly=True)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await settle(pilot, app)
        assert {"Diff", "Bench"} <= shown_keys(app) and not {"Restore", "Restart"} & shown_keys(app)
        assert not {"Restore", "Restart"} & {row[1] for row in app.key_list()}
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"restore")
        await pilot.pause(0.3)
        palette = app.screen.query_one("CommandList")
        assert not any("Restore the known-good" in str(palette.get_option_at_index(i).prompt)
                       for i in range(palette.option_count))
        await pilot.press("escape")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen))
        assert "All/differing" in shown_keys(app) and "Apply profile" not in shown_keys(app)
        await pilot.press("a", "R")
        refused = [m.action for m in posted if isinstance(m, messages.ActionRefused)]
        assert refused == ["restart", "restore"]


async def test_the_writable_dashboard_offers_restore_and_restart() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert {"Restore", "Restart"} <= shown_keys(app)


async def test_help_lists_each_key_with_its_binding_id() -> None:
    app, _ = make_app(keymap={"diff": "D"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        rows = {row[1]: row for row in app.screen.keys}
        assert rows["Diff"] == ("D", "Diff", "diff") and rows["Find"][2] == "log.find"
        assert rows["Line up"] == ("↑ / k", "Line up", "log.up")
        drawn = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert "id (keys.toml)" in drawn and "log.find" in drawn


async def test_the_screenshot_goes_to_a_folder_that_exists_and_says_where(tmp_path, monkeypatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # no ~/Downloads, no ~/Pictures: Textual's default would fail
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p")  # the palette's own Screenshot command
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"screenshot")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app._notifications) > 0)
        folder = Path(os.environ["XDG_DATA_HOME"]) / "mtptui" / "screenshots"
        saved = list(folder.glob("*.svg"))
        assert len(saved) == 1 and [n.message for n in app._notifications] == [f"Saved to {saved[0]}"]
        (home / "Downloads").mkdir()
        assert Path(app.deliver_screenshot()).parent == home / "Downloads"


async def test_copy_says_how_the_line_was_sent(monkeypatch) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    app, feed = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("c")
        note = list(app._notifications)[-1]
        assert note.message == f"{feed.lines[-1][:77]}…\n{SENT}" and note.title == "copy line"


@pytest.fixture
def tmux_server(tmp_path):
    """A real tmux server on its own socket; yields the TMUX value a client inside it would have."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed")
    socket = tmp_path / "tmux.sock"
    subprocess.run(["tmux", "-S", str(socket), "new-session", "-d", "sleep 60"], check=True, timeout=10)
    try:
        yield socket
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], timeout=10, check=False)


@pytest.mark.parametrize("setting, says", [
    ("off", "not copied: tmux has set-clipboard off"),
    ("external", "not copied: tmux has set-clipboard external"),
    ("on", "(tmux passes it on: set-clipboard on)"),
])
def test_copy_note_inside_tmux_names_its_set_clipboard(tmux_server, setting: str, says: str) -> None:
    subprocess.run(["tmux", "-S", str(tmux_server), "set", "-g", "set-clipboard", setting], check=True, timeout=10)
    env = {**os.environ, "TMUX": f"{tmux_server},1,0"}
    assert says in copy_note(env)
    assert copy_note({k: v for k, v in env.items() if k != "TMUX"}) == SENT
