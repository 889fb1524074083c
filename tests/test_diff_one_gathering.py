"""`mtptui diff HOST` (mtptui.ops.diff_live.live_diff) and the diff screen read their sides in one place,
mtptui.ops.diff_sides.gather_sides: on the demo's running server both get the same running, unit and profile
sides from it, so a second way of reading them cannot come back unnoticed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtptui.demo.run import DemoRun
from mtptui.ops import diff_sides
from mtptui.ops.connect import open_session
from mtptui.ops.diff_live import live_diff
from tests.demo_server import running_demo
from tests.ui_fixtures.support import make_app, settle, wait_until


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with running_demo(tmp_path, monkeypatch) as run:
        yield run


async def test_the_cli_and_the_screen_get_their_sides_from_one_gathering(demo: DemoRun,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from mtptui.ui.screens.diff import DiffScreen

    gathered: list[diff_sides.DiffSides] = []
    real = diff_sides.gather_sides

    async def recording(*args, **kwargs) -> diff_sides.DiffSides:
        gathered.append(await real(*args, **kwargs))
        return gathered[-1]

    monkeypatch.setattr(diff_sides, "gather_sides", recording)
    session = open_session(demo.host)
    cli = await live_diff(session, "restored")
    assert len(gathered) == 1 and cli.sides is gathered[0] and cli.running is gathered[0].live
    app, _ = make_app(host=demo.host)
    app.context.session = session
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        screen = DiffScreen(app, "restored")
        await app.push_screen(screen)
        await wait_until(pilot, lambda: bool(screen.sides))
    assert len(gathered) == 2 and screen.sides == gathered[1].sides
    pid = demo.pid_file_pid()
    assert [side.label for side in screen.sides] == [f"running:pid {pid}", f"unit:{demo.unit_path}",
                                                     "profile:restored"]
    assert [(s.label, s.flagset) for s in screen.sides] == [(s.label, s.flagset) for s in cli.sides.sides]
    assert cli.diff.sides == tuple(side.label for side in screen.sides)
