"""The dashboard against the lab host, for what an operator must be able to trust on a remote host.

An unknown host key is a question (known_hosts = "ask"), asked once; right after a restart the header shows the
new process (the status poller is poked, not waited for); a stopped server is shown stopped in every pane; the
banner of a finished restart can be dismissed; `q` during a restart or a bench run asks first.
"""

from __future__ import annotations

import pytest

from mtptui.ops.connect import open_session
from mtptui.ops.feed.host import feed_for_host
from mtptui.ui.app import AppContext, MtpApp, QuitScreen
from mtptui.ui.hostkey import HostKeyDialogs
from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.screens.dashboard import DOWN_PANES
from tests.lab import HOSTNAME
from tests.ui_fixtures.support import SIZE, wait_until

pytestmark = pytest.mark.ssh
NEVER = 3600.0  # a status poller that only looks again when poked


def dashboard(host, *, every_s: float = NEVER, slow_every_s: float = NEVER, readonly: bool = False):
    config = host.config
    host_keys = HostKeyDialogs()
    session = open_session(config, readonly=readonly, accept_host_key=host_keys)
    context = AppContext("lab", host=config, readonly=readonly, session=session, host_keys=host_keys)
    return MtpApp(feed_for_host(session, every_s=every_s, slow_every_s=slow_every_s), context,
                  cursor_blink=False, keymap={})


def ask_mode(host) -> None:
    """known_hosts = "ask" in the host file, and the lab's key not yet known."""
    host.path.write_text(host.path.read_text().replace('target = "gpu-lab"', 'target = "gpu-lab"\nknown_hosts = "ask"'))
    host.lab.known_hosts.write_text("")


async def test_an_unknown_host_key_is_asked_once_and_no_leaves_it_refused(lab_systemd):
    ask_mode(lab_systemd)
    app = dashboard(lab_systemd)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=90)
        body = str(app.screen.body)
        assert "ssh-ed25519  SHA256:" in body and str(lab_systemd.lab.known_hosts) in body
        await pilot.press("n")
        await wait_until(pilot, lambda: app.live.connection.state == "failed", timeout=90)
        assert "you did not trust its host key" in app.live.connection.reason
        await pilot.pause(1.0)
        assert not isinstance(app.screen, ConfirmScreen)  # the status poller did not ask again
    assert lab_systemd.lab.known_hosts.read_text() == ""


async def test_yes_adds_the_key_to_the_file_ssh_config_names_and_connects(lab_systemd):
    ask_mode(lab_systemd)
    app = dashboard(lab_systemd)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=90)
        await pilot.press("y")
        await wait_until(pilot, lambda: app.live.lines_seen > 10, timeout=90)
        assert app.live.connection.state == "connected"
    assert lab_systemd.lab.known_hosts.read_text().startswith(f"{HOSTNAME} ssh-ed25519 ")


async def test_right_after_a_restart_the_header_shows_the_new_process_and_the_banner_can_be_dismissed(lab_systemd):
    lab_systemd.wait_ready()
    app = dashboard(lab_systemd)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.host is not None and "pid" in app.live.host.service,
                         timeout=90)
        old = app.live.host.service
        await pilot.press("R")  # the dialog waits for the host's own lint (a few seconds, more on a loaded machine)
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=90)
        await pilot.press("y")
        panel = app.screen.restart_panel
        await wait_until(pilot, lambda: panel.finished, timeout=90)
        pid = int(lab_systemd.lab.run("systemctl", "show", "-p", "MainPID", "--value", "sglang-qwen.service").stdout)
        await wait_until(pilot, lambda: app.live.host.service == f"sglang-qwen.service (pid {pid})", timeout=90)
        assert old != app.live.host.service  # only the restart's poke can have refreshed it (poller: 1 h)
        assert app.live.host.launch.get("--speculative-num-steps") == 3
        assert panel.has_class("-active") and app.screen.check_action("dismiss_banner", ()) is True
        await pilot.press("x")
        assert not panel.has_class("-active") and panel.view is None


async def test_a_stopped_server_is_shown_stopped_in_every_pane(lab_systemd):
    lab_systemd.wait_ready()
    app = dashboard(lab_systemd, every_s=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.server.phase == "ready", timeout=90)
        assert lab_systemd.lab.run("systemctl", "stop", "sglang-qwen.service").returncode == 0
        await wait_until(pilot, lambda: app.live.up.down == "stopped", timeout=90)
        app.screen.paint(everything=True)
        await pilot.pause()
        for name in DOWN_PANES:
            pane = app.screen.query_one(f"#{name}")
            assert pane.has_class("-down") and pane.border_subtitle == "server stopped · last run's figures"
        phase = app.screen.query_one("#startup").table(app.live).columns[1]._cells[0]
        # stopped, not crashed, though systemd says failed: 0.5.12.post1 ends its drain by SIGKILL to itself
        assert str(phase) == "● stopped · service failed, signal, status 9"
        assert app.live.uptime_s() is None


async def test_q_during_a_restart_asks_first_and_no_keeps_watching(lab_systemd):
    lab_systemd.wait_ready()
    app = dashboard(lab_systemd)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.host is not None and app.live.server.phase == "ready",
                         timeout=90)
        await pilot.press("R")  # the dialog waits for the host's own lint (a few seconds, more on a loaded machine)
        try:
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=90)
        except AssertionError:  # say what the app said instead of opening the dialog
            raise AssertionError(f"no confirm dialog; toasts: {[n.message for n in app._notifications]}") from None
        await pilot.press("y")
        panel = app.screen.restart_panel
        await wait_until(pilot, lambda: panel.running, timeout=90)
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen))
        assert "nothing will watch it" in str(app.screen.body)
        await pilot.press("q")  # a second q does not stack another dialog
        assert sum(isinstance(s, QuitScreen) for s in app.screen_stack) == 1
        await pilot.press("n")
        await wait_until(pilot, lambda: panel.finished, timeout=90)
        assert app.is_running and panel.view.outcome == "ready"
        await pilot.press("q")  # nothing runs now: q quits at once
        await wait_until(pilot, lambda: not app.is_running)
