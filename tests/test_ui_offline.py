"""An unreachable host says so everywhere (issue 29, item 6): every pane reads "not connected: REASON" with the
`mtptui check HOST` hint, what needs the host is not offered (a key pressed says why), a key reconnects at once,
and the header tells the time since the last byte."""

from __future__ import annotations

import asyncio

from mtptui.ops.feed.items import Connection
from mtptui.remote.errors import ConnectError
from mtptui.remote.follow import Backoff, LogFollower
from mtptui.remote.logsource import FileLog
from mtptui.ui import messages
from mtptui.ui.screens.dashboard import DOWN_PANES
from mtptui.ui.widgets.header_bar import HeaderBar
from mtptui.ui.widgets.health_line import HealthLine
from mtptui.ui.widgets.stats_strip import StatsStrip
from tests.test_ui_snapshots import recorded_lines
from tests.ui_fixtures.support import FIXED_NOW, ControlledFeed, demo_status, make_app, settle, wait_until

REASON = "cannot connect to gpu-box port 22: Connection refused"
HOST_KEYS = ("diff", "restore", "restart", "bench", "tune")


class ReconnectingFeed(ControlledFeed):
    """A controlled feed that counts the operator's reconnects."""

    def __init__(self, status) -> None:
        super().__init__(status)
        self.reconnects = 0

    def reconnect(self) -> None:
        self.reconnects += 1


def offered(app) -> set[str]:
    return {active.binding.id for active in app.screen.active_bindings.values() if active.enabled}


async def test_every_pane_says_not_connected_and_what_to_do() -> None:
    feed = ReconnectingFeed(demo_status())
    app, _ = make_app(feed=feed)
    posted: list = []
    async with app.run_test(size=(160, 48), message_hook=posted.append) as pilot:
        feed.push(recorded_lines(until="Decode batch"))
        await settle(pilot, app)
        assert set(HOST_KEYS) <= offered(app) and "host.reconnect" not in offered(app)
        feed.send(Connection("reconnecting", REASON, 8.0))
        await wait_until(pilot, lambda: app.live.up.offline == REASON)
        app.screen.paint(everything=True)
        await pilot.pause()
        for name in (*DOWN_PANES, "gpus"):  # where the whole sentence does not fit, the hint comes first
            subtitle = str(app.screen.query_one(f"#{name}").border_subtitle)
            assert subtitle in (f"not connected: {REASON} · mtptui check demo",
                                f"not connected (mtptui check demo): {REASON}"), (name, subtitle)
        line = app.screen.query_one(HealthLine).renderable.plain
        assert "not connected" in line and "C reconnect" in line and "tok/s" not in line
        assert not set(HOST_KEYS) & offered(app) and "host.reconnect" in offered(app)
        await pilot.press("R")
        refused = [m for m in posted if isinstance(m, messages.ActionRefused)]
        assert refused and "Not connected to demo" in refused[-1].reason and "mtptui check demo" in refused[-1].reason
        await pilot.press("C")
        assert feed.reconnects == 1
        app.live.clock = lambda: FIXED_NOW + 130.0  # two minutes later, nothing came
        header = app.screen.query_one(HeaderBar).text(app.live)
        assert "last byte 2m 10s ago" in header.plain
        feed.send(Connection("connected"))
        await wait_until(pilot, lambda: app.live.up.offline is None)
        app.screen.paint(everything=True)
        assert set(HOST_KEYS) <= offered(app)
        assert "not connected" not in str(app.screen.query_one("#serving").border_subtitle)


async def test_the_strip_says_it_on_a_small_terminal() -> None:
    feed = ReconnectingFeed(demo_status())
    app, _ = make_app(feed=feed)
    async with app.run_test(size=(80, 24)) as pilot:
        feed.push(recorded_lines(until="Decode batch"))
        await settle(pilot, app)
        feed.send(Connection("failed", REASON))
        await wait_until(pilot, lambda: app.live.up.offline == REASON)
        app.screen.paint(everything=True)
        first = app.screen.query_one(StatsStrip).renderable.columns[0]._cells[0]
        assert str(first) == f"not connected (mtptui check demo): {REASON}"  # the hint is never what is cut


class RefusedTransport:
    """A stand-in transport whose host refuses every connection (as a host that is down does)."""

    label = "gpu-box"

    def __init__(self) -> None:
        self.attempts = 0

    async def open_stream(self, command):
        self.attempts += 1
        raise ConnectError(REASON)


async def test_a_reconnect_does_not_wait_out_the_backoff() -> None:
    transport = RefusedTransport()
    follower = LogFollower(transport, FileLog("/var/log/sglang.log"), backoff=Backoff(initial_s=600.0))
    events = follower.events()

    async def next_state() -> str:
        return (await asyncio.wait_for(events.__anext__(), 10)).state  # a guard against a hang, not a timing

    assert await next_state() == "connecting"
    assert await next_state() == "reconnecting" and transport.attempts == 1  # now 600 s of backoff
    follower.retry_now()
    assert await next_state() == "reconnecting" and transport.attempts == 2
    await follower.stop()
