"""A host that also names another engine's server ([engines.vllm]) keeps that engine's profiles for a tune across
engines: the restart dialog (r), the command palette and the diff screen's next profile offer only the host's own
engine's profiles, and `mtptui restart`, `mtptui diff` and `mtptui flags lint` refuse another engine's profile in
one sentence before they connect (the host file points at a loopback port nothing listens on, so a connection
attempt would read as "connection refused", not as the sentence)."""

from __future__ import annotations

import socket
import subprocess
import sys
import tomllib

import pytest
import tomli_w

from mtptui.config.loader import load_host_file
from mtptui.errors import ConfigError
from mtptui.ops.launches import profile_side
from mtptui.ui.screens.profile_pick import ProfilePickScreen
from tests.test_tune_engines import host_file
from tests.ui_fixtures.support import SIZE, make_app, settle, wait_until

OWN = ["redeploy-1step", "restored"]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def two_engine_host(tmp_path):
    path = host_file(tmp_path)
    data = tomllib.loads(path.read_text())
    data["ssh"].update({"target": "127.0.0.1", "port": closed_port()})
    path.write_text(tomli_w.dumps(data))
    return path


def test_the_host_file_has_both_engines_profiles_and_its_own_are_the_sglang_ones(two_engine_host) -> None:
    host = load_host_file(two_engine_host)
    assert sorted(host.profiles) == ["redeploy-1step", "restored", "vllm-bad", "vllm-mtp3"]
    assert sorted(host.own_profiles()) == OWN
    with pytest.raises(ConfigError) as caught:
        profile_side(host, "vllm-mtp3")
    message = str(caught.value)
    assert message.startswith("profile 'vllm-mtp3' launches vllm, but ct129's server is sglang")
    assert "(redeploy-1step, restored)" in message and "mtptui tune ct129 --arms" in message
    with pytest.raises(ConfigError, match="has no profile 'nope'"):
        host.own_profile("nope")


@pytest.mark.parametrize("command", [["restart", "ct129", "--yes", "--profile", "vllm-mtp3"],
                                     ["diff", "ct129", "--profile", "vllm-mtp3"],
                                     ["flags", "lint", "ct129", "--profile", "vllm-mtp3"],
                                     ["diff", "--left", "ct129:vllm-mtp3", "--right", "ct129:restored"]])
def test_restart_diff_and_lint_refuse_another_engines_profile_before_connecting(two_engine_host, command) -> None:
    done = subprocess.run([sys.executable, "-m", "mtptui.cli.main", *command, "--config", str(two_engine_host)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "launches vllm, but ct129's server is sglang" in lines[0], done.stderr


async def test_the_restart_dialog_and_the_palette_offer_only_the_hosts_own_engines_profiles(two_engine_host) -> None:
    from textual.command import CommandPalette
    from textual.widgets import OptionList

    app, _ = make_app(host=load_host_file(two_engine_host))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfilePickScreen))
        options = app.screen.query_one(OptionList)
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == OWN
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ProfilePickScreen))
        app.action_command_palette()
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Restart with profile")
        listed = app.screen.query_one("CommandList", OptionList)

        def offered() -> list[str]:
            """the palette's restart commands, once it has listed them"""
            return sorted(str(listed.get_option_at_index(i).prompt).split("\n")[0]
                          for i in range(listed.option_count))

        await wait_until(pilot, lambda: len(offered()) >= 2)
        restarts = [line for line in offered() if line.startswith("Restart with profile")]
        assert restarts == [f"Restart with profile {name}" for name in OWN], offered()
