"""A profile saved in the demo is offered by the next `mtptui demo`, and the saved file holds no run's paths."""

from __future__ import annotations

import socket
import sys
import tomllib
from contextlib import closing
from pathlib import Path

import pytest
from textual.widgets import Input

from mtptui.config import load_host_file
from mtptui.config.paths import config_home
from mtptui.demo.run import PREFERRED_PORT, DemoRun, demo_host_file
from mtptui.demo.profiles import saved_demo_path, with_saved_profiles
from tests.recorded_feed import RecordedFeed
from mtptui.ui import messages
from tests.test_ui_flags import of_type, open_form
from tests.ui_fixtures.support import DEMO_LOG, SIZE, demo_status, fixed_clock, wait_until


@pytest.fixture
def run(tmp_path: Path):
    """A prepared demo run (not started) on a port other than the shipped one, as when 31000 is taken."""
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as busy:
        try:
            busy.bind(("127.0.0.1", PREFERRED_PORT))
        except OSError:
            pass  # already taken: the run picks another port anyway
        prepared = DemoRun.prepare(tmp_path, speed=200)
    assert prepared.host.api_url != load_host_file(demo_host_file()).api_url
    return prepared


def demo_app(prepared: DemoRun):
    from mtptui.ui.app import AppContext, MtpApp

    context = AppContext("demo", host=prepared.host, profile_store=prepared.profile_store())
    feed = RecordedFeed(DEMO_LOG, status=demo_status())
    return MtpApp(feed, context, clock=fixed_clock, cursor_blink=False, keymap={})


async def test_a_profile_saved_in_the_demo_is_in_the_next_demo_without_this_runs_paths(run: DemoRun) -> None:
    app = demo_app(run)
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        form = await open_form(pilot, app)
        form.query_one("#f-max-running-requests", Input).value = "8"
        form.query_one("#flags-name", Input).value = "eight"
        await pilot.pause(0.5)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: of_type(posted, messages.ProfileSaved))
        note = [n.message for n in app._notifications if n.title == "flags"][-1]
    path = config_home() / "hosts" / "demo.toml"
    assert Path(of_type(posted, messages.ProfileSaved)[0].path) == path == saved_demo_path()
    assert note == f"Saved profile eight to {path}; the next `mtptui demo` offers it"
    assert "eight" in app.context.host.profiles  # this run can restart with it at once
    text = path.read_text(encoding="utf-8")
    assert str(run.run_dir) not in text and sys.executable not in text and "/run-" not in text
    shipped = tomllib.loads(demo_host_file().read_text(encoding="utf-8"))
    saved = tomllib.loads(text)
    assert saved["api_url"] == shipped["api_url"] and saved["server"] == shipped["server"]
    assert {p["flags"]["port"] for p in saved["profiles"].values()} == {31000}
    assert saved["profiles"]["eight"]["flags"]["max-running-requests"] == 8 and saved["known_good"] == "restored"

    following = DemoRun.prepare(run.run_dir.parent, speed=200)
    assert following.host.profile("eight").flags["max-running-requests"] == 8
    assert following.host.profile("eight").flags["port"] == int(following.host.api_url.rsplit(":", 1)[1])
    assert following.host.profile("eight").python == sys.executable  # localized again for that run


def test_an_old_demo_file_with_a_runs_paths_is_cleaned_on_the_next_save(tmp_path: Path) -> None:
    from mtptui.config.loader import dump_host
    from mtptui.demo.profiles import save_demo_profile

    template = load_host_file(demo_host_file())
    polluted = DemoRun.prepare(tmp_path, speed=200).host  # what earlier versions saved: a run's paths and port
    path = tmp_path / "demo.toml"
    path.write_text(dump_host(polluted), encoding="utf-8")
    assert sorted(with_saved_profiles(template, path).profiles) == sorted(template.profiles)
    save_demo_profile(template, "again", template.profile("restored"), path=path)
    text = path.read_text(encoding="utf-8")
    assert str(tmp_path / "run-") not in text and sys.executable not in text
    assert sorted(tomllib.loads(text)["profiles"]) == ["again", "redeploy-1step", "restored"]


def test_a_broken_saved_demo_file_is_one_sentence(tmp_path: Path) -> None:
    from mtptui.errors import ConfigError

    path = saved_demo_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("name = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match=str(path)):
        DemoRun.prepare(tmp_path, speed=200)


# Where the demo's runs go -------------------------------------------------------------------------------------

def test_runs_go_under_the_state_folder_and_only_the_last_ones_stay(monkeypatch) -> None:
    import os

    from mtptui.demo.run import KEEP_RUNS, runs_home

    assert runs_home() == Path(os.environ["XDG_STATE_HOME"]) / "mtptui" / "demo"
    made = []
    for second in range(KEEP_RUNS + 3):  # one a "second" apart: the folders sort by their time
        monkeypatch.setattr("time.strftime", lambda fmt, second=second: f"20261129-1450{second:02d}")
        made.append(DemoRun.prepare(speed=200).run_dir)
    kept = sorted(p.name for p in runs_home().iterdir())
    assert kept == sorted(p.name for p in made[-KEEP_RUNS:]) and all(p.parent == runs_home() for p in made)


def test_a_run_whose_server_still_runs_is_not_removed(tmp_path) -> None:
    import os

    from mtptui.demo.run import prune_runs

    live, dead = tmp_path / "run-20261129-000000-a", tmp_path / "run-20261129-000001-b"
    for folder, pid in ((live, os.getpid()), (dead, 2 ** 22 + 7)):
        folder.mkdir()
        (folder / "sglang.pid").write_text(f"{pid}\n")
    newest = tmp_path / "run-20261129-000002-c"
    newest.mkdir()
    assert prune_runs(tmp_path, keep=1) == [dead]
    assert live.is_dir() and newest.is_dir() and not dead.exists()
