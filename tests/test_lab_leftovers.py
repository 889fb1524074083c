"""Nothing is left behind on the lab host: quitting the dashboard, closing a follower or losing the connection ends
every process mtptui started there; a wrong log path is one sentence, not an endless wait.

The lab's processes are counted by network namespace (``ip netns pids``): before, the host runs sshd and the
server; after, exactly those again.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from mtptui.ops.connect import open_session
from mtptui.remote.logsource import LogChunk, Start
from tests.ui_fixtures.support import SIZE, wait_until

pytestmark = pytest.mark.ssh


def settled_pids(lab, expected: set[int], timeout: float = 10) -> set[int]:
    """The lab's processes once they equal ``expected`` (or whatever they are at the deadline)."""
    deadline = time.monotonic() + timeout
    while (pids := lab.pids()) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return pids


async def test_quitting_the_dashboard_ends_what_it_started_on_the_host(lab_systemd):
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import AppContext, MtpApp

    lab_systemd.wait_ready()
    before = lab_systemd.lab.pids()
    config = lab_systemd.config
    session = open_session(config, readonly=True)
    app = MtpApp(feed_for_host(session), AppContext("lab", host=config, session=session), cursor_blink=False,
                 keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.lines_seen > 20, timeout=30)
        assert len(lab_systemd.lab.pids() - before) >= 2  # the session's sshd and the journal reader
        await pilot.press("q")
    assert settled_pids(lab_systemd.lab, before) == before


async def test_a_dropped_connection_ends_the_follower_on_the_host(lab_process):
    lab_process.wait_ready()
    lab = lab_process.lab
    before = lab.pids()
    async with open_session(lab_process.config, readonly=True) as session:
        follower = session.follower(start=Start.tail(3), wait_for_log=True)
        async for item in follower.events():
            if isinstance(item, LogChunk):
                break
        reading = lab.pids() - before
        assert lab.sshd.kill_connections() >= 1  # the network fails: only the sshd side goes away
        assert settled_pids(lab, before) == before, f"still running: {lab.pids() - before} (were {reading})"
        await follower.stop()


async def test_closing_a_follower_that_waits_for_a_missing_file_ends_it(lab_process):
    lab = lab_process.lab
    before = lab.pids()
    async with open_session(lab_process.config, readonly=True) as session:
        follower = session.follower(wait_for_log=True)
        follower.source = type(follower.source)(str(lab.srv / "not-yet.log"))
        events = follower.events()
        await anext(events)  # connecting
        await asyncio.wait_for(anext(events), 30)  # connected: the reader waits for the file
        assert len(lab.pids() - before) >= 2
        await follower.stop()
        await events.aclose()
    assert settled_pids(lab, before) == before


async def test_a_wrong_log_path_is_one_sentence_and_leaves_nothing_running(lab_process):
    lab = lab_process.lab
    before = lab.pids()
    text = lab_process.path.read_text().replace(str(lab.srv / "sglang.log"), "/var/log/nope/sglang.log")
    lab_process.path.write_text(text)
    async with open_session(lab_process.config, readonly=True) as session:
        statuses = [item async for item in session.follower().events() if not isinstance(item, LogChunk)]
    assert [s.state for s in statuses] == ["connecting", "connected", "failed"]
    assert statuses[-1].reason == ("cannot follow /var/log/nope/sglang.log on root@gpu-lab: "
                                   "no such file: /var/log/nope/sglang.log")
    assert settled_pids(lab, before) == before
