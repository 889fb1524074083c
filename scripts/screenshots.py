"""Make the SVG screenshots in screenshots/ from the live demo, through Textual's pilot.

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--speed 20] [--batches 14]

Starts the demo's simulated server in the mission's bad state (as `mtptui demo` does), waits until it has
served ``--batches`` decode batches, then drives the dashboard at 160x48 and saves one SVG per screen.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZE = (160, 48)


async def until(pilot, predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"screenshots: gave up waiting for {what}")
        await pilot.pause(0.1)


async def shoot(pilot, app, out: Path, name: str) -> None:
    app.clear_notifications()
    await pilot.pause(0.6)  # panes repaint at most twice a second
    app.save_screenshot(f"{name}.svg", str(out))
    print(f"screenshots: {out / name}.svg")


async def take(out: Path, speed: float, batches: int) -> None:
    from textual.command import CommandPalette

    from mtptui.cli.commands.demo import demo_dashboard
    from mtptui.demo.run import DemoRun
    from mtptui.ops.connect import open_session
    from mtptui.ui.app import MtpApp

    demo = DemoRun.prepare(speed=speed)
    os.environ.update(demo.server_environment())
    demo.start()
    try:
        app = MtpApp(*demo_dashboard(demo, open_session(demo.host)), cursor_blink=False, keymap={})
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.live.server.decode.count >= batches, 180, f"{batches} decode batches")
            await shoot(pilot, app, out, "dashboard")
            await pilot.press("t")
            await shoot(pilot, app, out, "dashboard-light")
            await pilot.press("t", "backslash", *"batch", "enter", "slash", *"accept len: 1.7", "enter")
            await shoot(pilot, app, out, "log-filter-find")
            await pilot.press("backslash", "ctrl+u", "enter", "slash", "ctrl+u", "enter", "end", "question_mark")
            await shoot(pilot, app, out, "help")
            await pilot.press("escape", "ctrl+p")
            await until(pilot, lambda: isinstance(app.screen, CommandPalette), 10, "the palette")
            await pilot.press(*"restore")
            await shoot(pilot, app, out, "palette")
            await bench_shot(pilot, app, out, "bench", "s")  # the bad redeploy measured
            await ops_shots(pilot, app, out, batches)
            await bench_shot(pilot, app, out, "bench-after-restore", "g")  # the same workload, compared
    finally:
        demo.stop()


async def ops_shots(pilot, app, out: Path, batches: int) -> None:
    """Diff, flags form, the restore's confirm dialog, its live progress, and the dashboard after it."""
    from textual.widgets import DataTable

    from mtptui.ui.screens.confirm import ConfirmScreen

    await pilot.press("escape", "d")
    await until(pilot, lambda: app.screen.query(DataTable) and app.screen.query_one(DataTable).row_count, 20,
                "the diff")
    await shoot(pilot, app, out, "diff")
    await pilot.press("escape", "f")
    await shoot(pilot, app, out, "flags")
    await pilot.press("escape", "R")
    await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), 20, "the confirm dialog")
    await shoot(pilot, app, out, "restart-confirm")
    await pilot.press("y")
    panel = app.screen_stack[0].restart_panel
    await until(pilot, lambda: panel.view is not None and panel.view.shards, 60, "shards loading")
    await shoot(pilot, app, out, "restart-progress")
    await until(pilot, lambda: panel.view.outcome is not None, 120, "the restart's end")
    done = app.live.server.decode.count
    await until(pilot, lambda: app.live.server.decode.count >= done + batches, 180, "decode batches after it")
    await shoot(pilot, app, out, "restored")


async def bench_shot(pilot, app, out: Path, name: str, key: str) -> None:
    """Open the bench screen, start (s) or repeat (g) the run, shoot it finished, go back to the dashboard."""
    await pilot.press("escape", "b")
    await until(pilot, lambda: type(app.screen).__name__ == "BenchScreen", 10, "the bench screen")
    await pilot.press(key)
    await until(pilot, lambda: app.screen.live.state in ("finished", "failed"), 120, "the bench run")
    await shoot(pilot, app, out, name)
    await pilot.press("escape")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--speed", type=float, default=20.0, help="startup pace of the simulated server")
    parser.add_argument("--batches", type=int, default=14, help="decode batches to wait for before the shots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="mtptui-shots-")  # a fresh bench history to compare in
    asyncio.run(take(args.out, args.speed, args.batches))


if __name__ == "__main__":
    main()
