"""Log rotation on the lab host, over SSH: copytruncate and rename (logrotate's two ways), each also while the
connection is down, lose and repeat no line.

A writer on the host appends numbered lines at 2,000 lines/s and rotates the log between two of them
(tests/logrotation.py); for some rotations it first drops every SSH connection (sshd's per-connection
processes killed, as a network failure does), so the follower resumes by inode and offset after the file has
moved. The test counts lines, not time; benchmarks/rotation_bench.py measures the same at a larger scale.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from mtptui.config.models import SSHConfig
from mtptui.remote.follow import Backoff, LogFollower
from mtptui.remote.logsource import FileLog, Start
from mtptui.remote.ssh import SSHTransport
from tests.lab import ALIAS
from tests.logrotation import LINE, Link, RotatingWriter, count, follow_until

pytestmark = pytest.mark.ssh
LINES, RATE, ROTATIONS = 12_000, 2_000, 6
KILLED_BEFORE = {1, 2, 4, 5}  # rotations 0, 2, 4 are copytruncate, 1, 3, 5 create: two of each while down


async def follow_while_writing(log, writer: RotatingWriter, link: Link):
    """Follow ``log`` over SSH from its beginning while ``writer`` writes it in a thread: (bytes, statuses)."""
    transport = SSHTransport(SSHConfig(target=ALIAS, keepalive_s=1))  # through the ProxyCommand, a kill is silence
    follower = LogFollower(transport, FileLog(str(log)), start=Start.beginning(), backoff=Backoff(initial_s=0.2))
    thread = threading.Thread(target=writer.run, name="rotating-writer")
    thread.start()
    try:
        return await asyncio.wait_for(follow_until(follower, LINE % (writer.lines - 1), link), 120)
    finally:
        thread.join()
        await transport.close()


@pytest.fixture
def operator(lab, monkeypatch: pytest.MonkeyPatch):
    lab.reset()
    monkeypatch.setenv("HOME", str(lab.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return lab


async def test_rotations_and_dropped_connections_lose_and_repeat_no_line(operator) -> None:
    log = operator.srv / "sglang.log"
    log.touch()
    kills: list[int] = []

    link, dropped_at = Link(), [0]

    def drop_connections(index: int, how: str) -> None:
        """Before some rotations, drop the follower's connection, once a new one is up and reading."""
        if index in KILLED_BEFORE:
            link.wait_reading_again(dropped_at[0])
            dropped_at[0] = link.connected
            kills.append(operator.sshd.kill_connections())

    writer = RotatingWriter(log, lines=LINES, rate=RATE, rotations=ROTATIONS, before_rotation=drop_connections)
    received, statuses = await follow_while_writing(log, writer, link)
    assert writer.done == ["copytruncate", "create"] * 3
    assert len(kills) == 4 and all(kills), kills  # every drop found live connections to kill
    assert [s.state for s in statuses].count("reconnecting") >= 4
    assert count(received, LINES) == (0, 0)  # (lost, duplicated)
    assert received == b"".join(LINE % n for n in range(LINES))  # and in order


async def test_a_rename_while_a_nohup_server_keeps_writing_the_old_file_loses_and_repeats_no_line(operator) -> None:
    """logrotate's create with a server started by nohup, which never reopens its log: the lines go on in the
    renamed file (followed to its end, also across a dropped connection) until the restarted server writes the
    new one."""
    log = operator.srv / "sglang.log"
    log.touch()
    link, dropped_at, kills = Link(), [0], []

    def drop_connection(index: int, how: str) -> None:
        if index == 2:  # the second rename: the follower resumes in the renamed file by its inode
            link.wait_reading_again(dropped_at[0])
            dropped_at[0] = link.connected
            kills.append(operator.sshd.kill_connections())

    writer = RotatingWriter(log, lines=LINES, rate=RATE, rotations=4, before_rotation=drop_connection,
                            ways=("rename-kept", "reopen"))
    received, _ = await follow_while_writing(log, writer, link)
    assert writer.done == ["rename-kept", "reopen"] * 2 and kills and all(kills)
    assert count(received, LINES) == (0, 0)  # (lost, duplicated)
    assert received == b"".join(LINE % n for n in range(LINES))
