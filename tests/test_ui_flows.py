"""Pilot tests of the dashboard's flows: follow/pause/resume, find, filter, wrap, copy, palette, readonly, themes."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette

from mtptui.ui import messages
from mtptui.ui.logbuffer import ERROR
from mtptui.ui.screens import OPS_SCREENS
from mtptui.ui.screens.help import HelpScreen
from mtptui.ui.widgets.header_bar import HeaderBar
from mtptui.ui.widgets.health_line import HealthLine
from mtptui.ui.widgets.log_view import LogView
from tests.ui_fixtures.support import SIZE, ControlledFeed, decode_line, demo_status, make_app, settle, wait_until


def of_type(posted: list, kind: type) -> list:
    return [m for m in posted if isinstance(m, kind)]


async def test_scrolling_back_pauses_counts_new_lines_and_space_resumes() -> None:
    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        feed.push(decode_line(i) for i in range(200))
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        assert log.following and log.scroll_y == log.max_scroll_y > 0
        await pilot.press("pageup")
        assert not log.following and log.scroll_y < log.max_scroll_y
        assert of_type(posted, messages.FollowChanged)[-1].following is False
        top = log.scroll_y
        feed.push(decode_line(i) for i in range(200, 230))
        await settle(pilot, app)
        assert log.new_lines == 30 and "+30 new lines" in str(log.border_title)
        assert log.scroll_y == top  # the paused view stays on the same lines
        await pilot.press("space")
        assert log.following and log.new_lines == 0 and log.scroll_y == log.max_scroll_y
        assert of_type(posted, messages.FollowChanged)[-1].following is True
        await pilot.press("space")  # space pauses too; End resumes
        assert not log.following
        await pilot.press("end")
        assert log.following


async def test_a_paused_view_stays_on_its_lines_while_old_ones_are_evicted() -> None:
    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=SIZE) as pilot:
        log = app.screen.query_one(LogView)
        log.buffer.maxlen = 300
        log.buffer.texts = type(log.buffer.texts)(maxlen=300)
        log.buffer.levels = type(log.buffer.levels)(maxlen=300)
        feed.push(decode_line(i) for i in range(300))
        await settle(pilot, app)
        await pilot.press("up", "up")
        seq = log.cursor
        top_text = log.buffer.text(log.buffer.seq_at(int(log.scroll_y)))
        feed.push(decode_line(i) for i in range(300, 400))
        await settle(pilot, app)
        assert log.buffer.first == 100 and len(log.buffer) == 300
        assert log.cursor == seq and log.buffer.text(log.buffer.seq_at(int(log.scroll_y))) == top_text
        assert log.new_lines == 100


async def test_find_highlights_jumps_and_n_moves_between_matches() -> None:
    app, feed = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        matching = sum("accept len: 1.75" in line for line in feed.lines)
        assert matching >= 3
        await pilot.press("slash")
        assert app.focused is app.screen.prompt
        await pilot.press(*"accept len: 1.75")
        assert log.find_text == "accept len: 1.75"
        await pilot.press("enter")
        assert app.focused is log and not log.following
        first = log.cursor
        assert "accept len: 1.75" in log.buffer.text(first)
        assert f"find “accept len: 1.75”: {matching}/{matching} · n/N" in str(log.border_subtitle)  # the last
        await pilot.press("N")
        second = log.cursor
        assert second < first and "accept len: 1.75" in log.buffer.text(second)
        assert f"find “accept len: 1.75”: {matching - 1}/{matching} · n/N" in str(log.border_subtitle)
        await pilot.press("n")
        assert log.cursor == first
        await pilot.press("G")  # following again, no cursor: the count without a place
        assert f"find “accept len: 1.75”: {matching} lines" in str(log.border_subtitle)


async def test_enter_shows_the_whole_line_the_pane_abbreviates() -> None:
    from mtptui.ui.screens.log_line import LogLineScreen

    args = "server_args=ServerArgs(" + ", ".join(f"option_{i}={'x' * 40!r}" for i in range(260)) + ")"
    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=SIZE) as pilot:
        feed.push([f"[2026-11-29 14:50:00] {args}", decode_line(1)])
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        from mtptui.ui.log_rows import display_text

        assert len(args) > 11_000 and display_text(log.buffer.text(log.buffer.first)).endswith(" chars]")
        await pilot.press("k", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, LogLineScreen))
        assert app.screen.text == f"[2026-11-29 14:50:00] {args}"
        await pilot.press("c")
        assert app.clipboard == app.screen.text
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, LogLineScreen))
        await pilot.press("c")  # the pane's own copy is the whole line too
        assert app.clipboard.endswith(")") and len(app.clipboard) == len(args) + 22


async def test_a_filter_keeps_following_as_matching_lines_arrive() -> None:
    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=SIZE) as pilot:
        feed.push(decode_line(i) for i in range(100))
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        await pilot.press("k", "k")  # reading back: paused
        assert not log.following
        await pilot.press("backslash", *"accept len: 1.75", "enter")
        assert log.following
        feed.push([decode_line(200, accept=1.75), decode_line(201, accept=1.9)])
        await settle(pilot, app, expected_lines=102)
        assert log.following and log.scroll_y == log.max_scroll_y
        assert "#full token: 800" in log.buffer.text(log.buffer.seq_at(len(log.buffer) - 1))


async def test_filter_and_inverted_filter_and_escape_restores() -> None:
    app, feed = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        from mtptui.ops.own_polls import is_own_poll

        log = app.screen.query_one(LogView)
        own = sum(map(is_own_poll, log.buffer.texts))  # mtptui's own polls, hidden whatever the filter
        stored = len(log.buffer.texts) - own
        assert own and len(log.buffer) == stored
        await pilot.press("backslash", *"Decode batch")
        decode = [t for t in log.buffer.texts if "decode batch" in t.lower()]
        assert len(log.buffer) == len(decode) == 20
        await pilot.press("enter", "backslash", "home")
        await pilot.press("exclamation_mark", "enter")
        assert log.buffer.filter.inverted and len(log.buffer) == stored - 20
        assert all("Decode batch" not in log.buffer.text(log.buffer.seq_at(i)) for i in range(len(log.buffer)))
        await pilot.press("backslash", "ctrl+u", *"INFO", "escape")
        assert log.buffer.filter.inverted and len(log.buffer) == stored - 20  # Escape kept the previous filter
        await pilot.press("backslash", "ctrl+u", "enter")
        assert log.buffer.filter is None and len(log.buffer) == stored


async def test_wrap_toggle_shows_long_lines_on_several_rows() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        rows = log.virtual_size.height
        await pilot.press("w")
        assert log.wrap and log.virtual_size.height > rows + 10  # the server_args line alone wraps many times
        assert log.virtual_size.width == log.scrollable_content_region.width
        assert log.scroll_y == log.max_scroll_y  # still following
        await pilot.press("w")
        assert not log.wrap and log.virtual_size.height == rows


async def test_copy_puts_the_current_line_on_the_clipboard() -> None:
    app, feed = make_app()
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await settle(pilot, app)
        await pilot.press("c")
        assert app.clipboard == feed.lines[-1]
        await pilot.press("up", "up", "c")
        assert app.clipboard == feed.lines[-3]
        assert [m.text for m in of_type(posted, messages.LineCopied)] == [feed.lines[-1], feed.lines[-3]]


async def test_errors_are_highlighted_and_announced(real_logs) -> None:
    app, feed = make_app(real_logs / "25-nextn-mtp-crash-sigquit-scheduler-exception-tp3.log")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.lines_seen >= len(feed.lines))
        await wait_until(pilot, lambda: app.live.server.phase == "crashed")
        log = app.screen.query_one(LogView)
        levels = {log.buffer.text(s): log.buffer.level(s) for s in range(log.buffer.first, log.buffer.total)}
        assert levels[next(t for t in levels if "Scheduler hit an exception" in t)] == ERROR
        assert levels[next(t for t in levels if "line 1827, in run_scheduler_process" in t)] == ERROR  # its traceback
        assert levels[next(t for t in levels if "Received sigquit" in t)] == ERROR
        titles = [n.title for n in app._notifications]
        assert "server error" in titles and "server" in titles


async def test_readonly_refuses_restore_and_restart_and_says_so_in_the_header() -> None:
    app, _ = make_app(readonly=True)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await settle(pilot, app)
        assert "READONLY" in str(app.screen.query_one(HeaderBar).text(app.live))
        await pilot.press("R", "r")
        refused = of_type(posted, messages.ActionRefused)
        assert [m.action for m in refused] == ["restore", "restart"]
        assert all("--readonly" in m.reason for m in refused)
        assert all(n.severity == "warning" for n in app._notifications)
        line = app.screen.query_one(HealthLine).renderable.plain  # R is not offered: no "restore restore"
        assert "d why" in line and "restore" not in line.split("│")[-1], line


async def test_ctrl_c_says_which_key_quits_in_plain_words() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+c")
        await pilot.pause()
        messages_shown = [n.message for n in app._notifications]
        assert messages_shown == ["Press q or ^q to quit mtptui."]


async def test_ops_keys_without_their_screen_say_so_and_registered_screens_open(monkeypatch) -> None:
    from textual.screen import Screen

    app, _ = make_app()
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        await settle(pilot, app)
        monkeypatch.setattr(OPS_SCREENS["diff"], "factory", None)  # as before a screen registers
        await pilot.press("d")
        assert not of_type(posted, messages.ActionRefused)
        assert "not available in this version yet" in list(app._notifications)[-1].message
        monkeypatch.setattr(OPS_SCREENS["diff"], "factory", lambda app: Screen(name="diff-stand-in"))
        await pilot.press("d")
        assert app.screen.name == "diff-stand-in"


async def test_palette_runs_domain_commands() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"toggle line wrap")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: log.wrap)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"theme: mtptui-light")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.theme == "mtptui-light")


async def test_t_cycles_the_shipped_themes() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "mtptui-dark"
        await pilot.press("t")
        assert app.theme == "mtptui-light"
        await pilot.press("t")
        assert app.theme == "mtptui-dark"


async def test_keys_can_be_remapped_by_binding_id() -> None:
    app, _ = make_app(keymap={"log.wrap": "W", "help": "f2"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        await pilot.press("w")
        assert not log.wrap
        await pilot.press("W")
        assert log.wrap
        await pilot.press("f2")
        assert isinstance(app.screen, HelpScreen)
        assert ("W", "Wrap", "log.wrap") in app.screen.keys


async def test_help_lists_the_keys_and_closes_with_escape() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = dict((description, key) for key, description, _ in app.screen.keys)
        assert keys["Restore"] == "R" and keys["Find"] == "/" and keys["Help"] == "? / f1"
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)


async def test_connection_states_reach_the_header() -> None:
    from mtptui.ops.feed.items import Connection

    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=SIZE) as pilot:
        header = app.screen.query_one(HeaderBar)
        feed.send(Connection("reconnecting", "connection reset", 4))
        await wait_until(pilot, lambda: "reconnecting in 4 s" in str(header.render()))
        feed.send(Connection("failed", "host key refused"))
        await wait_until(pilot, lambda: "failed: host key refused" in str(header.render()))
        assert any(n.severity == "error" for n in app._notifications)


async def test_keys_typed_right_after_slash_reach_the_prompt() -> None:
    """A burst (a paste through tmux, fast typing) must not leak into the dashboard's own keys (c, t, ...)."""
    from textual import events

    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for character in "/accept/len":
            app.post_message(events.Key({"/": "slash"}.get(character, character), character))
        await wait_until(pilot, lambda: app.screen.query_one(LogView).find_text == "accept/len")
        assert app.theme == "mtptui-dark" and not app.clipboard
        await pilot.press("escape", "backslash", *"a\\b", "enter")
        assert app.screen.query_one(LogView).buffer.filter.needle == "a\\b"


async def grow_the_view(pilot, log) -> None:
    log.styles.height = log.size.height + 10


async def filter_the_lines(pilot, log) -> None:
    await pilot.press("backslash", *"accept len: 1.7", "enter")


@pytest.mark.parametrize("change", [grow_the_view, filter_the_lines])
async def test_a_followed_view_keeps_following_when_its_end_moves_up(change) -> None:
    """Growing the view or filtering its lines clamps scroll_y to the new end: that is not scrolling back."""
    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=SIZE) as pilot:
        feed.push(decode_line(i) for i in range(200))
        await settle(pilot, app)
        log = app.screen.query_one(LogView)
        assert log.following
        await change(pilot, log)
        await settle(pilot, app)
        assert log.following and log.scroll_y == log.max_scroll_y


class RereadFeed(ControlledFeed):
    """A controlled feed whose log is a journal: ``reread`` is recorded, and the test pushes what it reads."""

    rereads = True

    def __init__(self, status) -> None:
        super().__init__(status)
        self.asked: list = []

    async def reread(self, start, name: str) -> None:
        from mtptui.ops.feed.items import Reread

        self.asked.append((start, name))
        self.send(Reread(name))


async def test_the_journal_is_read_again_from_the_servers_last_start() -> None:
    from mtptui.remote.logsource import Start

    feed = RereadFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=SIZE) as pilot:
        feed.push(decode_line(i, tput=20.0) for i in range(30))
        await settle(pilot, app)
        await pilot.press("L")
        assert app.focused is app.screen.prompt and app.screen.prompt.value == "restart"
        await pilot.press("enter")
        await wait_until(pilot, lambda: feed.asked)
        started = int(demo_status().started_at)
        assert feed.asked == [(Start.since_time(f"@{started - 2}"), "the server's last start")]
        feed.push(decode_line(i, tput=55.0) for i in range(3))
        log = app.screen.query_one(LogView)
        await wait_until(pilot, lambda: len(log.buffer) == 4)
        assert log.buffer.text(log.buffer.first) == "──── the log again, from the server's last start ────"
        assert list(app.live.throughput.steady)[-1][1] == 55.0 and len(app.live.throughput.steady) <= 3


async def test_a_time_is_read_in_journalctls_words_and_a_bad_one_is_one_sentence() -> None:
    feed = RereadFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("L", "ctrl+u", *"14:30", "enter")
        await wait_until(pilot, lambda: feed.asked)
        assert feed.asked[0][0].since == "14:30:00" and feed.asked[0][1] == "14:30 today"
        await pilot.press("L", "ctrl+u", *"lunch", "enter")
        await wait_until(pilot, lambda: any("read the journal from 'lunch'?" in n.message for n in app._notifications))
        assert len(feed.asked) == 1


async def test_a_file_log_says_it_has_no_times() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("L")
        await pilot.pause()
        assert "only a journal can be read from a time" in list(app._notifications)[-1].message
        assert app.focused is not app.screen.prompt
