"""Which profile a command means when none is named: one rule (HostConfig.default_profile), the same answer from
`mtptui diff HOST`, `mtptui diff FILE.toml`, `mtptui restart`, the restart keys, the diff screen and the flags
form. The known-good profile, else a host's only profile; with a choice to make, each says so and none guesses."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtptui.cli.commands._restart_host import _profile_name
from mtptui.config.loader import dump_host
from mtptui.errors import ConfigError, UserError
from mtptui.ops.diff_live import default_profile
from mtptui.ops.diff_sources import load_source
from tests.ui_fixtures.support import demo_host, demo_status, make_app, settle, wait_until

DEMO = demo_host()


def _host(known_good: str | None, names: tuple[str, ...]):
    profiles = {name: DEMO.profiles["restored"] for name in names}
    return DEMO.model_copy(update={"known_good": known_good, "profiles": profiles})


# (host, the profile meant): the known-good one even when another sorts first; the only one; no guess between two
CASES = {
    "known_good": (_host("restored", ("a-first", "restored", "z-last")), "restored"),
    "only_profile": (_host(None, ("solo",)), "solo"),
    "a_choice": (_host(None, ("a-first", "b-second")), None),
}


@pytest.mark.parametrize("case", CASES)
def test_the_commands_mean_the_same_profile(case: str, tmp_path: Path) -> None:
    host, meant = CASES[case]
    assert host.default_profile() == meant
    path = tmp_path / "host.toml"
    path.write_text(dump_host(host), encoding="utf-8")
    if meant is None:
        with pytest.raises(UserError, match="name one with --profile NAME"):
            default_profile(host)  # mtptui diff HOST and the restart plan
        with pytest.raises(UserError, match="name one with --profile NAME"):
            _profile_name(host, None)  # mtptui restart HOST
        with pytest.raises(ConfigError, match="name the profile to compare"):
            load_source(str(path))  # mtptui diff FILE.toml ...
        return
    assert default_profile(host) == _profile_name(host, None) == meant
    label, _ = load_source(str(path))
    assert label == f"profile:{path}:{meant}"


@pytest.mark.parametrize("case", CASES)
async def test_the_screens_mean_the_same_profile(case: str) -> None:
    from mtptui.ui.screens.diff import DiffScreen
    from mtptui.ui.screens.flags import FlagsScreen

    host, meant = CASES[case]
    app, _ = make_app(host=host, status=demo_status(launch=None))  # no running launch: the form opens a profile
    app.context.session = object()  # the restart keys plan only with a host session
    planned: list[str] = []
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        panel = app.screen.restart_panel
        panel.plan = planned.append  # what R would restart with, before anything is contacted
        await pilot.press("R")
        await pilot.pause()
        assert planned == ([meant] if meant else [])
        if meant is None:
            assert "no known_good profile; press r to pick one" in list(app._notifications)[-1].message
        diff = DiffScreen(app)
        assert diff.profile == meant
        flags = FlagsScreen(app)
        assert flags.source == (f"profile {meant}" if meant else "an empty form")
        if meant is None:
            await app.push_screen(diff)
            await wait_until(pilot, lambda: "press p to pick" in str(diff.query_one("#diff-head").render()))
