"""Helpers for the dashboard tests: a deterministic app on recorded input, and a feed the test drives.

The recorded log ``demo-redeploy.log`` was written by `mtptui demo` (the simulated server in the mission's
bad state, profile redeploy-1step, with its background load) and cut before the shutdown lines;
``adaptive-downshift.log`` (and its /server_info, ``.json``) by the simulated server with adaptive speculation under a
low-acceptance load (``python -m tests.speculation_support`` writes them again).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import AsyncIterator, Callable, Iterable

from mtptui.config import load_host_file
from mtptui.ops.feed.items import Connection, FeedItem, HostStatus, LogChunk
from tests.recorded_feed import RecordedFeed
from mtptui.engines.sglang.flags import FlagSet

FIXTURES = Path(__file__).resolve().parent
ROOT = FIXTURES.parents[1]
DEMO_LOG = FIXTURES / "demo-redeploy.log"
DEMO_HOST = ROOT / "configs" / "demo.toml"
STARTED_AT = 1795963415.0  # the recorded server's /server_info startup_time
FIXED_NOW = STARTED_AT + 65.0  # "up 1m 05s"
SIZE = (160, 48)


def fixed_clock() -> float:
    return FIXED_NOW


def demo_host():
    return load_host_file(DEMO_HOST)


def demo_host_with_unit(folder: Path):
    """The demo host whose hand-started server replaced the known-good unit, written into ``folder``."""
    from mtptui.demo.run import UNIT_NAME, known_good_unit

    host = demo_host()
    unit = folder / UNIT_NAME
    unit.write_text(known_good_unit(host), encoding="utf-8")
    return host.model_copy(update={"server": host.server.model_copy(update={"unit_file": str(unit)})})


def demo_status(**changes) -> HostStatus:
    """What the demo feed reports about the bad redeploy (the launch as /server_info would give it)."""
    host = demo_host()
    launch = FlagSet.from_profile(host.profile("redeploy-1step"), host.sglang_version)
    fields = dict(host="demo", where="this machine (simulated)", service="process pid 4242", service_state="running",
                  service_phase="running", version="0.5.12.post1", started_at=STARTED_AT, launch=launch,
                  launch_source="server_info", gpu_memory_gb=48.0)
    fields.update(changes)
    return HostStatus(**fields)


def make_app(source=DEMO_LOG, *, readonly: bool = False, theme: str | None = None, status: HostStatus | None = None,
             keymap: dict[str, str] | None = None, feed=None, host=None, **feed_options):
    """(app, feed): the dashboard on a recorded log, fixed clock, no cursor blink, no user keymap (``host``: the
    host file's configuration, the demo host's by default)."""
    from mtptui.ui.app import AppContext, MtpApp

    feed = feed or RecordedFeed(source, status=status or demo_status(), **feed_options)
    context = AppContext("demo", host=host or demo_host(), readonly=readonly)
    app = MtpApp(feed, context, theme=theme, clock=fixed_clock, cursor_blink=False, keymap=keymap or {})
    return app, feed


async def wait_until(pilot, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app run until ``predicate()`` holds; fail with a clear message at the deadline."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s: {predicate.__doc__ or predicate}")
        await pilot.pause(0.02)


async def wait_handled(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Like ``wait_until``, for a state the app's handlers set (not what the screen shows): the app's tasks run,
    nothing forces a repaint. ``pilot.pause`` refreshes the whole screen on every call, so a test that steps a
    log hundreds of times through ``wait_until`` spends most of its time compositing frames it never reads."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s: {predicate.__doc__ or predicate}")
        await asyncio.sleep(0.005)


async def steady_screen(pilot, timeout: float = 3.0) -> str:
    """Let the app paint until two screenshots in a row are the same, and return the last.

    A snapshot taken while a resize, a mount or a refresh is still being laid out differs from the accepted one
    only on a busy machine; waiting for a still screen takes that timing out of the comparison, never a real
    difference (one that stays is compared like any other). A screen that never stands still (a spinner) is
    taken at the deadline. Toasts are dropped first: they come and go with the machine's pace (one posted late,
    one timed out early), and no snapshot shows one (tests of toasts read ``app._notifications``).
    """
    app = pilot.app
    app.clear_notifications()
    await pilot.pause()
    deadline = time.monotonic() + timeout
    shot = app.export_screenshot(title=app.title, simplify=True)
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        await pilot.wait_for_scheduled_animations()
        again = app.export_screenshot(title=app.title, simplify=True)
        if again == shot:
            return again
        shot = again
    return shot


async def settle(pilot, app, expected_lines: int | None = None) -> None:
    """Wait until every recorded line reached the dashboard and no error is held back any more (a log ending in
    a traceback releases it after the quiet period, with its toast), then paint everything and drop the toasts."""
    feed = app.feed
    expected = len(feed.lines) if expected_lines is None else expected_lines

    def delivered() -> bool:
        """all recorded lines delivered and no error held back"""
        return app.live.lines_seen >= expected and not app.live.error_held

    await wait_until(pilot, delivered)
    app.screen.paint(everything=True)
    app.clear_notifications()
    await pilot.pause()


class ControlledFeed:
    """A live feed the test drives: ``push`` lines, ``status`` or ``connection`` items whenever it wants."""

    label = "controlled"

    def __init__(self, status: HostStatus | None = None) -> None:
        self.queue: asyncio.Queue[FeedItem | None] = asyncio.Queue()
        self.lines: list[str] = []
        if status is not None:
            self.queue.put_nowait(status)

    def push(self, lines: Iterable[str]) -> None:
        lines = list(lines)
        self.lines += lines
        self.queue.put_nowait(LogChunk("".join(f"{line}\n" for line in lines).encode()))

    def send(self, item: FeedItem) -> None:
        self.queue.put_nowait(item)

    async def items(self) -> AsyncIterator[FeedItem]:
        yield Connection("connected")
        while (item := await self.queue.get()) is not None:
            yield item

    async def close(self) -> None:
        self.queue.put_nowait(None)


def decode_line(index: int, accept: float = 1.75, tput: float = 35.0) -> str:
    second = index % 60
    return (f"[2026-11-29 14:50:{second:02d} TP0] Decode batch, #running-req: 1, #full token: {600 + index}, "
            f"full token usage: 0.00, accept len: {accept:.2f}, accept rate: {accept - 1:.2f}, cuda graph: True, "
            f"gen throughput (token/s): {tput:.2f}, #queue-req: 0")
