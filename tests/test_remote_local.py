"""The local transport, the read-only guard, log following (file) and the process manager on this machine."""

from __future__ import annotations

import asyncio
import os

import pytest

from mtptui.config.models import ProcessServer
from mtptui.remote.errors import ReadOnlyError, RemoteError
from mtptui.remote.follow import Backoff, ConnectionStatus, LogFollower
from mtptui.remote.local import LocalTransport
from mtptui.remote.logsource import FileLog, LogChunk, Start
from mtptui.remote.process import ProcessManager
from mtptui.remote.shell import Command
from mtptui.remote.transport import ReadOnlyTransport


async def test_run_gives_exit_status_output_and_takes_stdin():
    result = await LocalTransport().run(Command.of(["sh", "-c", "cat; echo err >&2; exit 3"], input=b"in put"))
    assert (result.exit_status, result.stdout, result.stderr) == (3, b"in put", b"err\n")
    with pytest.raises(RemoteError, match="exit 3|err"):
        result.check("the thing")


async def test_run_times_out_with_one_sentence():
    with pytest.raises(RemoteError, match="timed out after 0.2 s"):
        await LocalTransport().run(Command.of(["sleep", "5"], "sleep"), timeout=0.2)


async def test_stream_reads_until_the_end_then_knows_the_exit_status():
    stream = await LocalTransport().open_stream(Command.of(["sh", "-c", "echo one; echo two; exit 4"]))
    data = b""
    while chunk := await stream.read():
        data += chunk
    assert data == b"one\ntwo\n" and stream.exit_status == 4


async def test_readonly_transport_refuses_changes_and_allows_reads():
    transport = ReadOnlyTransport(LocalTransport())
    assert (await transport.run(Command.of(["echo", "hi"]))).out == "hi\n"
    refused = "refusing to restart the unit on this machine: mtptui runs with --readonly"
    with pytest.raises(ReadOnlyError, match=refused):
        await transport.run(Command.of(["true"], "restart the unit", changes_host=True))


async def follow_until(follower: LogFollower, done, statuses: list | None = None) -> bytes:
    data = b""
    async for item in follower.events():
        if isinstance(item, LogChunk):
            data += item.data
            if done(data):
                await follower.stop()
        elif statuses is not None:
            statuses.append(item)
    return data


async def test_follow_starts_n_lines_before_the_end_and_sees_appends(tmp_path):
    log = tmp_path / "server.log"
    log.write_bytes(b"one\ntwo\nthree\n")
    follower = LogFollower(LocalTransport(), FileLog(str(log)), start=Start.tail(2))
    statuses: list[ConnectionStatus] = []

    async def append():
        while follower.position is None:
            await asyncio.sleep(0.02)
        with open(log, "ab") as handle:
            handle.write(b"four\nfi")
            handle.flush()
            await asyncio.sleep(0.2)
            handle.write(b"ve\n")

    writer = asyncio.ensure_future(append())
    data = await asyncio.wait_for(follow_until(follower, lambda d: d.endswith(b"five\n"), statuses), 20)
    await writer
    assert data == b"two\nthree\nfour\nfive\n"
    assert [s.state for s in statuses] == ["connecting", "connected", "stopped"]
    assert str(statuses[0]) == f"connecting ({log})"
    assert follower.position.offset == log.stat().st_size


async def test_follow_from_a_position_resumes_at_that_byte(tmp_path):
    log = tmp_path / "server.log"
    log.write_bytes(b"line 1\nline 2\n")
    first = LogFollower(LocalTransport(), FileLog(str(log)), start=Start.beginning())
    assert await asyncio.wait_for(follow_until(first, lambda d: d.endswith(b"2\n")), 20) == b"line 1\nline 2\n"
    with open(log, "ab") as handle:
        handle.write(b"line 3\n")
    again = LogFollower(LocalTransport(), FileLog(str(log)), position=first.position)
    assert await asyncio.wait_for(follow_until(again, lambda d: d.endswith(b"3\n")), 20) == b"line 3\n"


async def test_a_truncated_or_replaced_log_is_read_from_its_start_and_marked(tmp_path):
    log = tmp_path / "server.log"
    log.write_bytes(b"old old old\n")
    follower = LogFollower(LocalTransport(), FileLog(str(log)), start=Start.beginning())
    resets: list[LogChunk] = []

    def truncate() -> None:
        log.write_bytes(b"new\n")  # truncate and rewrite

    def rotate() -> None:
        os.rename(log, tmp_path / "server.log.1")
        log.write_bytes(b"rotated\n")

    # Each step runs once, when the log read so far first ends with its text. A condition that stays true (the
    # truncation's empty reset chunk still ends with "old") rewrote the file a second time; a reader that saw it
    # empty in between rightly read "new" twice (the flake of issue 27; the test below holds that reading).
    steps = [(b"old old old\n", truncate), (b"new\n", rotate), (b"rotated\n", None)]

    async def follow() -> bytes:
        data = b""
        async for chunk in follower.chunks():
            data += chunk.data
            resets.extend([chunk] if chunk.reset else [])
            if chunk.data and data.endswith(steps[0][0]):
                _, step = steps.pop(0)
                if step is None:
                    await follower.stop()
                else:
                    step()
        return data

    assert await asyncio.wait_for(follow(), 20) == b"old old old\nnew\nrotated\n"
    assert len(resets) == 2


async def test_each_truncation_the_reader_sees_is_a_reset_even_to_the_same_text(tmp_path):
    """Truncated and rewritten twice with the same line, the log is that line twice, each after a reset: the
    reader reports what it saw (the file empty), not what it might guess from the size or the last bytes."""
    log = tmp_path / "server.log"
    log.write_bytes(b"old old old\n")
    follower = LogFollower(LocalTransport(), FileLog(str(log)), start=Start.beginning())
    seen: list[LogChunk] = []
    writer = None

    async def follow() -> None:
        nonlocal writer
        async for chunk in follower.chunks():
            seen.append(chunk)
            if chunk.reset:
                assert writer is not None
                writer.write(b"new\n")  # the file stayed empty until the reader said so
                writer.close()
            elif sum(c.reset for c in seen) == 2:
                await follower.stop()
            else:
                writer = open(log, "wb", buffering=0)  # truncated; closed on the reset it causes

    await asyncio.wait_for(follow(), 20)
    assert [(c.data, c.reset) for c in seen] == [(b"old old old\n", False), (b"", True), (b"new\n", False),
                                                 (b"", True), (b"new\n", False)]


async def collect(follower: LogFollower) -> list:
    return [item async for item in follower.events()]


async def test_a_missing_reader_fails_with_a_reason_and_no_retry(tmp_path):
    follower = LogFollower(LocalTransport(), FileLog(str(tmp_path / "x.log"), python="no-such-python"),
                           backoff=Backoff(initial_s=0.01))
    statuses = await asyncio.wait_for(collect(follower), 20)
    assert statuses[-1].state == "failed"
    assert "cannot follow " in statuses[-1].reason and "x.log on this machine" in statuses[-1].reason \
        and "not found" in statuses[-1].reason
    assert str(statuses[-1]).startswith("failed: ")


async def test_a_reader_that_keeps_failing_is_retried_with_capped_backoff(tmp_path):
    source = FileLog(str(tmp_path / "x.log"), python="false")  # exits 1 at once, every time
    follower = LogFollower(LocalTransport(), source, backoff=Backoff(initial_s=0.01, cap_s=0.02, max_attempts=3))
    statuses = await asyncio.wait_for(collect(follower), 20)
    waits = [s.retry_in_s for s in statuses if s.state == "reconnecting"]
    assert waits == [0.01, 0.02, 0.02]
    assert statuses[-1].state == "failed" and "exited (status 1)" in statuses[-1].reason
    assert str(statuses[2]).startswith("reconnecting in 0.01 s")


def test_backoff_doubles_up_to_its_cap():
    backoff = Backoff(initial_s=0.5, cap_s=4)
    assert [backoff.delay(n) for n in range(1, 7)] == [0.5, 1, 2, 4, 4, 4]
    assert not backoff.exhausted(100)


SERVER = ["sh", "-c", "trap '' TERM; echo started; sleep 60 & wait", "x", "-m", "sglang.launch_server", "--port", "1"]


async def test_process_manager_launches_finds_and_stops_the_whole_group(tmp_path):
    config = ProcessServer(log_file=str(tmp_path / "logs dir" / "sglang.log"), pid_file=str(tmp_path / "s.pid"))
    manager = ProcessManager(LocalTransport(), config, stop_timeout_s=0.5, port=1)
    assert await manager.find() is None
    pid = await manager.launch(SERVER, {"SGLANG_X": "a b $HOME `id`"})
    for _ in range(100):
        if (tmp_path / "s.pid").exists() and "started" in (tmp_path / "logs dir" / "sglang.log").read_text():
            break
        await asyncio.sleep(0.05)
    assert int((tmp_path / "s.pid").read_text()) == pid
    info = await manager.find()
    assert info.pid == pid and info.pgid == pid and info.argv == SERVER
    assert info.server_env()["SGLANG_X"] == "a b $HOME `id`"
    await manager.stop(info)  # TERM is ignored, so this took a KILL
    assert not await manager.alive(pid)
    assert await manager.find() is None


async def test_process_manager_finds_a_server_by_command_line(tmp_path):
    config = ProcessServer(log_file=str(tmp_path / "sglang.log"))
    manager = ProcessManager(LocalTransport(), config, stop_timeout_s=0.5, port=1)
    assert await ProcessManager(LocalTransport(), config, port=2).find() is None
    pid = await manager.launch(SERVER, {})
    try:
        for _ in range(100):
            if (info := await manager.find()) is not None:
                break
            await asyncio.sleep(0.05)
        assert info is not None and info.pid == pid
        assert await ProcessManager(LocalTransport(), config, port=2).find() is None  # another port: not ours
    finally:
        await LocalTransport().run(manager.stop_group_command(pid, pid))


async def test_a_file_feed_is_not_read_again_by_time(tmp_path):
    from mtptui.errors import UserError
    from mtptui.ops.feed.items import FollowerFeed

    log = tmp_path / "s.log"
    log.write_text("x\n")
    follower = LogFollower(LocalTransport(), FileLog(str(log)))
    feed = FollowerFeed(follower, "file", make=lambda start: follower)
    assert not feed.rereads
    with pytest.raises(UserError, match="read by bytes, not by time"):
        await feed.reread(Start.since_time("14:30:00"), "14:30 today")
