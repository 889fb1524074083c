"""The journal of a unit on the lab host (real journald), followed over SSH: every line exactly once across
dropped connections, a restart of the unit, ``journalctl --rotate`` and ``--vacuum-files``; journald's rate
limit (``Suppressed N messages``) shown as a gap, not passed off as a line of the server's.

The units here print numbered lines (``run R line N``, R counting the unit's starts): a loss or a repeat breaks
the numbering. Their journal is the server's journal as far as the follower knows: ``journalctl -u UNIT``.
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from mtptui.config.models import SSHConfig
from mtptui.remote.follow import Backoff, ConnectionStatus, LogFollower
from mtptui.remote.logsource import JournalLog, LogChunk, Start
from mtptui.remote.ssh import SSHTransport
from tests.lab import ALIAS, Lab

pytestmark = pytest.mark.ssh
LINES = 150  # a run prints this many, waits for GO, prints as many again, then sleeps
COUNTER, GO = "/var/lib/mtptest/runs", "/var/lib/mtptest/go"
LINES_UNIT = f"""[Unit]
Description=numbered lines (lab test)

[Service]
ExecStartPre=/bin/sh -c 'mkdir -p /var/lib/mtptest; echo $(( $(cat {COUNTER} 2>/dev/null || echo 0) + 1 )) > {COUNTER}'
ExecStart=/bin/sh -c 'r=$(cat {COUNTER}); i=1; while [ $i -le {2 * LINES} ]; do \\
[ $i -ne {LINES + 1} ] || while [ ! -e {GO} ]; do sleep 0.05; done; echo "run $r line $i"; i=$((i+1)); sleep 0.01; \\
done; exec sleep infinity'
"""
FLOOD_UNIT = """[Unit]
Description=a flood of lines (lab test)

[Service]
ExecStart=/bin/sh -c 'i=0; while [ $i -lt 3000 ]; do echo "flood $i"; i=$((i+1)); done; sleep 2; echo after; \\
exec sleep infinity'
LogRateLimitIntervalSec=1s
LogRateLimitBurst=20
"""


@pytest.fixture
def units(lab, monkeypatch):
    lab.reset()
    monkeypatch.setenv("HOME", str(lab.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    yield lab
    lab.run("rm", "-rf", "/var/lib/mtptest")
    lab.reset()


def install(lab: Lab, name: str, text: str) -> None:
    lab.path(f"/etc/systemd/system/{name}").write_text(text)
    lab.systemctl("daemon-reload")


def numbered(text: str) -> list[tuple[int, int]]:
    return [(int(r), int(n)) for r, n in re.findall(r"^run (\d+) line (\d+)$", text, re.M)]


class Reader:
    """A follower of a unit's journal over SSH, collecting what arrives."""

    def __init__(self, unit: str) -> None:
        self.transport = SSHTransport(SSHConfig(target=ALIAS))
        self.follower = LogFollower(self.transport, JournalLog(unit), start=Start.beginning(),
                                    backoff=Backoff(initial_s=0.3))
        self.chunks: list[LogChunk] = []
        self.statuses: list[ConnectionStatus] = []
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for item in self.follower.events():
            (self.chunks if isinstance(item, LogChunk) else self.statuses).append(item)

    @property
    def text(self) -> str:
        return b"".join(chunk.data for chunk in self.chunks).decode()

    async def until(self, what, timeout: float = 60) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not what(self):
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"the follower never got there: {self.text[-500:]!r}")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        await self.follower.stop()
        await asyncio.wait_for(self.task, 30)
        await self.transport.close()


def has(run: int, line: int):
    return lambda reader: (run, line) in numbered(reader.text)


async def test_the_follower_loses_and_repeats_nothing_across_drops_a_restart_rotation_and_vacuuming(units):
    lab = units
    install(lab, "mtptest-lines.service", LINES_UNIT)
    lab.systemctl("start", "mtptest-lines.service")
    reader = Reader("mtptest-lines.service")
    try:
        await reader.until(has(1, 40))
        assert lab.sshd.kill_connections() > 0  # mid-run: the journal goes on while the follower is away
        lab.run("journalctl", "--rotate")
        await reader.until(has(1, LINES))  # the unit waits: the follower's cursor is the journal's last entry
        assert lab.sshd.kill_connections() > 0
        vacuum = lab.run("sh", "-c", "journalctl --rotate && journalctl --vacuum-files=1")
        assert "Deleted archived journal" in vacuum.stdout + vacuum.stderr  # the entry of the cursor is gone
        lab.run("touch", GO)  # the next entry is the unit's own next line
        await reader.until(has(1, 2 * LINES))
        lab.systemctl("restart", "mtptest-lines.service")
        await reader.until(has(2, 2 * LINES))
    finally:
        await reader.close()
    expected = [(run, line) for run in (1, 2) for line in range(1, 2 * LINES + 1)]
    assert numbered(reader.text) == expected
    assert [s.state for s in reader.statuses].count("reconnecting") >= 2


async def test_journalds_rate_limit_is_a_visible_gap_not_a_server_line(units):
    lab = units
    install(lab, "mtptest-flood.service", FLOOD_UNIT)
    lab.systemctl("start", "mtptest-flood.service")
    reader = Reader("mtptest-flood.service")
    try:
        await reader.until(lambda r: "after" in r.text)
    finally:
        await reader.close()
    gaps = [chunk for chunk in reader.chunks if chunk.gap]
    assert len(gaps) == 1 and gaps[0].gap > 1000, [c.data for c in reader.chunks[-5:]]
    note = f"journald dropped {gaps[0].gap} lines of mtptest-flood.service here (its rate limit)\n"
    assert gaps[0].data == note.encode()
    flood = re.findall(r"^flood (\d+)$", reader.text, re.M)
    assert len(flood) + gaps[0].gap == 3000  # what arrived and what journald says it dropped: every line


MARK_UNIT = f"""[Unit]
Description=lines before and after a time (lab test)

[Service]
ExecStart=/bin/sh -c 'echo before one; echo before two; while [ ! -e {GO} ]; do sleep 0.05; done; echo after; \\
exec sleep infinity'
"""


async def test_a_journal_feed_is_read_again_from_a_time_and_says_where(units):
    """FollowerFeed.reread (the log pane's `L`): the running journalctl ends, a new one reads journald from the
    time, so the lines before it are not read again, and the feed marks where the log now starts."""
    from mtptui.ops.feed.items import Connection, FollowerFeed, LogChunk, Reread

    lab = units
    install(lab, "mtptest-mark.service", MARK_UNIT)
    lab.run("mkdir", "-p", "/var/lib/mtptest")
    lab.systemctl("start", "mtptest-mark.service")
    transport = SSHTransport(SSHConfig(target=ALIAS))

    def make(start: Start) -> LogFollower:
        return LogFollower(transport, JournalLog("mtptest-mark.service"), start=start, backoff=Backoff(initial_s=0.3))

    feed = FollowerFeed(make(Start.beginning()), "journal", make=make)
    assert feed.rereads
    items, seen = feed.items(), []

    async def until(what) -> None:
        while not what(b"".join(i.data for i in seen if isinstance(i, LogChunk)).decode()):
            seen.append(await asyncio.wait_for(items.__anext__(), 30))

    try:
        await until(lambda text: "before two\n" in text)
        since = int(time.time()) + 1  # journald's clock is this machine's: the lab shares its kernel
        await asyncio.sleep(since + 0.2 - time.time())
        lab.run("touch", GO)
        await until(lambda text: "after\n" in text)
        await feed.reread(Start.since_time(f"@{since}"), "the time asked for")
        await until(lambda text: text.count("after\n") == 2)
    finally:
        await feed.close()
        await transport.close()
    marks = [n for n, i in enumerate(seen) if isinstance(i, Reread)]
    assert [seen[n] for n in marks] == [Reread("the time asked for")]
    again = b"".join(i.data for i in seen[marks[0]:] if isinstance(i, LogChunk)).decode()
    assert again == "after\n"  # journald's lines before the time are not read again
    assert not any(isinstance(i, Connection) and i.state == "stopped" for i in seen[:marks[0]])
