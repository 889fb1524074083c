"""The dashboard's input: feeds (recorded, merged), the pump that batches, the LiveHost it fills."""

from __future__ import annotations

import asyncio
import itertools

from mtptui.ops.feed.items import Connection, FollowerFeed, HostStatus, LogChunk, merge_feeds
from tests.recorded_feed import RecordedFeed
from mtptui.ops.feed.host import with_server_info
from mtptui.engines.sglang.host_polls import info_of
from mtptui.ui import messages
from mtptui.ui.logbuffer import ERROR, INFO, WARNING
from mtptui.ui.pump import RESET_LINE, FeedPump, clean
from mtptui.engines.sglang.logparse.timestamps import parse_ts
from mtptui.ui.live_host import LiveHost
from mtptui.engines.sglang.spec_rows import launch_rows
from tests.ui_fixtures.support import DEMO_LOG, decode_line, demo_host

PREFIX = "[2026-05-11 23:49:07 TP0] "


async def collect(feed, until) -> list:
    """Items of ``feed`` until ``until(items)`` holds (then the feed is closed)."""
    items: list = []
    async for item in feed.items():
        items.append(item)
        if until(items):
            await feed.close()
    return items


def log_text(items: list) -> bytes:
    return b"".join(i.data for i in items if isinstance(i, LogChunk))


async def test_recorded_feed_paces_chunks_and_holds() -> None:
    feed = RecordedFeed(["a", "b", "c", "d", "e"], lines_per_chunk=2, status=HostStatus("demo"))
    items = await collect(feed, lambda items: sum(isinstance(i, LogChunk) for i in items) == 3)
    assert [type(i) for i in items][:2] == [Connection, HostStatus]
    assert [i.data for i in items if isinstance(i, LogChunk)] == [b"a\nb\n", b"c\nd\n", b"e\n"]


async def test_merged_feed_interleaves_sources_and_ends_with_the_log() -> None:
    async def status_source(emit) -> None:
        await emit(HostStatus("demo", service_state="running"))
        await asyncio.sleep(3600)

    feed = merge_feeds(RecordedFeed(["x"], hold=False), status_source)
    items = [item async for item in feed.items()]
    assert HostStatus("demo", service_state="running") in items
    assert log_text(items) == b"x\n" and items[-1] == Connection("stopped")


def test_server_info_gives_the_version_and_0523s_launch_command_but_never_the_start() -> None:
    """0.5.12.post1 has no launch_command or start time in /server_info; 0.5.23's startup_time is a dict of
    durations and its launch_command is argv without the interpreter. The uptime comes from /proc only."""
    old = with_server_info(HostStatus("demo"), info_of({"version": "0.5.12.post1", "tp_size": 2}, None))
    assert (old.version, old.started_at, old.launch, old.launch_source) == ("0.5.12.post1", None, None, "")
    info = {"version": "0.5.23", "startup_time": {"load_weight": 30.1, "scheduler_e2e": 61.0},
            "launch_command": "--model-path /m --speculative-algorithm NEXTN --speculative-num-steps 1 "
                              "--speculative-eagle-topk 1 --tp-size 2"}
    status = with_server_info(HostStatus("demo"), info_of(info, None))
    assert (status.version, status.started_at, status.launch_source) == ("0.5.23", None, "server_info")
    assert dict(launch_rows(status.launch, "—")) == {"algorithm": "NEXTN (runs as EAGLE)", "steps": "1",
                                                  "draft tokens": "2 (auto)", "topk": "1"}


def test_known_good_profile_resolves_without_auto_values() -> None:
    from mtptui.engines.sglang.flags import FlagSet

    host = demo_host()
    launch = FlagSet.from_profile(host.profile("restored"), host.sglang_version)
    assert dict(launch_rows(launch, "—")) == {"algorithm": "NEXTN (runs as EAGLE)", "steps": "3",
                                           "draft tokens": "4", "topk": "1"}


async def run_pump(feed, **options) -> list:
    posted: list = []
    await FeedPump(feed, posted.append, **options).run()
    return posted


async def test_pump_batches_lines_and_keeps_their_events() -> None:
    lines = [decode_line(i) for i in range(500)]
    posted = await run_pump(RecordedFeed(lines, lines_per_chunk=10, hold=False), interval_s=0.05)
    batches = [m for m in posted if isinstance(m, messages.LogBatch)]
    assert 1 <= len(batches) < 50  # 50 chunks, far fewer batches
    assert [line.text for b in batches for line in b.lines] == lines
    assert sum(1 for b in batches for e in b.events if e.kind == "decode") == 500
    assert isinstance(posted[-1], messages.FeedEnded)


async def test_pump_levels_tracebacks_warnings_and_progress_bars() -> None:
    text = [
        f"{PREFIX}Load weight begin. avail mem=47.02 GB",
        "Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01,  1.00s/it]",
        "Loading safetensors checkpoint shards: 100% Completed | 2/2 [00:02<00:00,  1.00s/it]",
        f"{PREFIX}KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_token_ratio: 0.5",
        "\x1b[32mgreen\x1b[0m\tafter a tab",
        f"{PREFIX}Scheduler hit an exception: Traceback (most recent call last):",
        '  File "scheduler.py", line 1, in run',
        "ValueError: boom",
    ]
    posted = await run_pump(RecordedFeed(text, hold=False))
    lines = [line for m in posted if isinstance(m, messages.LogBatch) for line in m.lines]
    levels = [line.level for line in lines]
    assert levels == [INFO, INFO, INFO, WARNING, INFO, ERROR, ERROR, ERROR]
    assert lines[1].progress is not None and lines[1].progress == lines[2].progress
    assert lines[4].text == "green   after a tab"
    error = next(e for m in posted if isinstance(m, messages.LogBatch) for e in m.events if e.kind == "error")
    assert "ValueError: boom" in error.fields["traceback"]


async def test_pump_marks_a_replaced_file() -> None:
    class Replaced:
        label = "replaced"

        async def items(self):
            yield LogChunk(b"old\n")
            yield LogChunk(b"", reset=True)
            yield LogChunk(b"new\n")

        async def close(self) -> None:
            pass

    posted = await run_pump(Replaced())
    texts = [line.text for m in posted if isinstance(m, messages.LogBatch) for line in m.lines]
    assert texts == ["old", RESET_LINE, "new"]


async def test_pump_shows_lines_journald_dropped_as_a_gap_and_never_parses_its_note() -> None:
    class RateLimited:
        label = "rate limited"

        async def items(self):
            yield LogChunk(b"[2026-05-11 23:49:07] before\n")
            yield LogChunk(b"journald dropped 2945 lines of sglang-qwen.service here (its rate limit)\n", gap=2945)
            yield LogChunk(b"[2026-05-11 23:49:09] after\n")

        async def close(self) -> None:
            pass

    posted = await run_pump(RateLimited())
    lines = [line for m in posted if isinstance(m, messages.LogBatch) for line in m.lines]
    assert [line.text for line in lines][1] == ("──── journald dropped 2945 lines of sglang-qwen.service here (its "
                                                "rate limit) ────")
    assert lines[1].level == WARNING and len(lines) == 3


async def test_pump_posts_the_next_batch_only_once_the_screen_has_shown_the_last() -> None:
    ended = asyncio.Event()

    class TwoBatches:
        label = "two batches"

        async def items(self):
            yield LogChunk(b"a\n")
            yield HostStatus("demo")  # not a log line: what was gathered is posted first
            yield LogChunk(b"b\n")
            ended.set()

        async def close(self) -> None:
            pass

    posted: list = []
    shown = asyncio.Event()
    task = asyncio.create_task(FeedPump(TwoBatches(), posted.append, shown).run())
    await asyncio.wait_for(ended.wait(), 5)
    await asyncio.sleep(0.1)
    batches = [m for m in posted if isinstance(m, messages.LogBatch)]
    assert [line.text for m in batches for line in m.lines] == ["a"] and not shown.is_set()
    assert not any(isinstance(m, messages.FeedEnded) for m in posted)  # "b" waits for the screen
    shown.set()
    await asyncio.wait_for(task, 5)
    batches = [m for m in posted if isinstance(m, messages.LogBatch)]
    assert [line.text for m in batches for line in m.lines] == ["a", "b"] and isinstance(posted[-1], messages.FeedEnded)


async def test_a_feed_faster_than_the_batches_is_still_posted_in_batches() -> None:
    """Every clock reading is a second after the last: a batch is due after each chunk, though the next is ready."""
    ticks = itertools.count(0.0, 1.0)
    posted: list = []
    await FeedPump(RecordedFeed([f"line {n}" for n in range(20)], lines_per_chunk=2, hold=False), posted.append,
                   clock=lambda: next(ticks)).run()
    batches = [[line.text for line in m.lines] for m in posted if isinstance(m, messages.LogBatch)]
    assert len(batches) == 10 and batches[0] == ["line 0", "line 1"] and batches[-1] == ["line 18", "line 19"]


async def test_follower_feed_passes_chunks_and_statuses_on_as_they_are() -> None:
    """The follower's own items reach the pump: a reconnection keeps its attempt, a chunk its resume point."""
    from mtptui.remote.follow import ConnectionStatus
    from mtptui.remote.logsource import FilePosition

    said = [ConnectionStatus("connected"), LogChunk(b"x\n", FilePosition(7, 2)),
            ConnectionStatus("reconnecting", "reset", 2.0, attempt=3)]

    class Follower:
        source = None

        async def events(self):
            for item in said:
                yield item

    items = [item async for item in FollowerFeed(Follower(), "log").items()]  # type: ignore[arg-type]
    assert len(items) == 3 and all(got is sent for got, sent in zip(items, said))
    assert items[2].attempt == 3


def test_clean_replaces_control_characters() -> None:
    assert clean("a\x07b\x1b[1mc\x1b[0m") == "a\\x07bc"


async def test_the_live_host_keeps_warm_up_out_of_the_steady_series() -> None:
    posted = await run_pump(RecordedFeed(DEMO_LOG, hold=False))
    live = LiveHost(clock=lambda: 0.0)
    for message in posted:
        if isinstance(message, messages.LogBatch):
            live.apply(message.events)
    series = live.throughput
    assert len(series.warm_up) == 1 and len(series.steady) == 19
    assert series.warm_up[0][1] < min(y for _, y in series.steady)
    assert 30 < live.steady_mean < 38 and len(live.accept_len) == 19
    assert series.steady[0][0] > 10  # seconds since the first log line, not since the first batch


def test_timestamps_of_every_prefix_style() -> None:
    assert parse_ts("2026-05-11 23:49:08") - parse_ts("2026-05-11 23:49:07") == 1
    assert parse_ts("2026-05-11 23:49:07.250") - parse_ts("2026-05-11 23:49:07") == 0.25
    assert parse_ts("2026-06-07 10:59:31,659") is not None
    assert parse_ts("16:43:30") - parse_ts("16:43:29") == 1
    assert parse_ts("garbage") is None and parse_ts(None) is None


def test_uptime_uses_the_injected_clock() -> None:
    live = LiveHost(clock=lambda: 1000.0)
    assert live.uptime_s() is None
    live.host = HostStatus("demo", started_at=940.0)
    assert live.uptime_s() == 60.0


async def test_pump_releases_a_cut_off_traceback_while_the_feed_still_runs() -> None:
    """The clock is the test's: each reading is 10 s after the last, so every pause counts as quiet."""
    ticks = itertools.count(0.0, 10.0)
    feed = RecordedFeed([f"{PREFIX}Scheduler hit an exception: Traceback (most recent call last):",
                         '  File "/sgl/scheduler.py", line 2931, in run_scheduler_process',
                         "    scheduler.event_loop_overlap()"], hold=True)
    posted: list = []
    released = asyncio.Event()

    def post(message) -> None:
        posted.append(message)
        if isinstance(message, messages.LogBatch) and any(e.kind == "error" for e in message.events):
            released.set()

    task = asyncio.create_task(FeedPump(feed, post, clock=lambda: next(ticks)).run())
    await asyncio.wait_for(released.wait(), 30)
    assert not any(isinstance(m, messages.FeedEnded) for m in posted)  # released before the feed ended
    (error,) = [e for m in posted if isinstance(m, messages.LogBatch) for e in m.events]
    assert (error.get("truncated"), error.get("last_frame")) == (
        True, 'File "/sgl/scheduler.py", line 2931, in run_scheduler_process')
    await feed.close()
    await asyncio.wait_for(task, 30)
    assert isinstance(posted[-1], messages.FeedEnded)
