"""Following a log over real SSH: the connection is killed mid-stream, the file keeps growing, and after the
reconnect every line arrives exactly once. (The journal, real journald on the lab host: tests/test_lab_journal.py.)"""

from __future__ import annotations

import asyncio

import pytest

from mtptui.remote.follow import Backoff, ConnectionStatus, LogFollower
from mtptui.remote.logsource import FileLog, Start
from mtptui.remote.ssh import SSHTransport

pytestmark = pytest.mark.ssh
LINES = 600


def expected(count: int) -> bytes:
    return b"".join(b"[2026-05-11 23:49:07 TP0] line %d of the log\n" % i for i in range(count))


async def write_lines(path, count: int, started: asyncio.Event) -> None:
    """Append lines steadily, a partial line now and then, whatever the connection does."""
    await started.wait()
    data = expected(count)
    with open(path, "ab", buffering=0) as handle:
        for start in range(0, len(data), 37):
            handle.write(data[start:start + 37])
            await asyncio.sleep(0.002)


async def follow_through_a_kill(sshd, follower: LogFollower, done: bytes, started: asyncio.Event):
    received, statuses, killed = b"", [], False
    async for item in follower.events():
        if isinstance(item, ConnectionStatus):
            statuses.append(item)
            continue
        received += item.data
        started.set()  # the reader is in place: from now on the file grows
        if not killed and received.count(b"\n") >= 100:
            killed = sshd.kill_connections() > 0
        if received.endswith(done):
            await follower.stop()
    return received, statuses, killed


async def test_ssh_follow_resumes_at_the_byte_after_a_killed_connection(sshd, tmp_path):
    log = tmp_path / "sglang.log"
    log.write_bytes(b"before 1\nbefore 2\n")
    transport = SSHTransport(sshd.ssh_config())
    follower = LogFollower(transport, FileLog(str(log)), start=Start.tail(1), backoff=Backoff(initial_s=0.2))
    started = asyncio.Event()
    writer = asyncio.ensure_future(write_lines(log, LINES, started))
    try:
        received, statuses, killed = await asyncio.wait_for(
            follow_through_a_kill(sshd, follower, expected(LINES)[-40:], started), 60)
    finally:
        await writer
        await transport.close()
    assert killed
    assert received == b"before 2\n" + expected(LINES)  # nothing lost, nothing twice
    states = [s.state for s in statuses]
    assert states[:4] == ["connecting", "connected", "reconnecting", "connected"] and states[-1] == "stopped"
    reconnecting = statuses[2]
    assert reconnecting.retry_in_s == 0.2 and "lost the connection to root@127.0.0.1" in reconnecting.reason
    assert str(reconnecting).startswith("reconnecting in 0.2 s (lost the connection")


async def test_ssh_follow_fails_for_good_on_a_refused_host_key(sshd, tmp_path):
    transport = SSHTransport(sshd.ssh_config(known_hosts_file=str(tmp_path / "empty")))
    follower = LogFollower(transport, FileLog(str(tmp_path / "x.log")))
    items = await asyncio.wait_for(collect(follower), 30)
    assert [i.state for i in items if isinstance(i, ConnectionStatus)] == ["connecting", "failed"]
    assert items[-1].reason.startswith("refusing to connect to 127.0.0.1:")


async def collect(follower: LogFollower) -> list:
    return [item async for item in follower.events()]
