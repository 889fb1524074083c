"""The live GPU pane against the lab host, over SSH only: nvidia-smi is polled through the session's connection,
the figures follow the server's load (the stand-in nvidia-smi, mtptui/demo_bin/nvidia-smi, installed on the
host), and a host without nvidia-smi gets one sentence in the pane."""

from __future__ import annotations

import os
import signal

import pytest

from mtptui.ops.connect import open_session
from mtptui.ops.feed.host import feed_for_host
from mtptui.ui.app import AppContext, MtpApp
from tests.sshd import NVIDIA_SMI
from tests.ui_fixtures.support import SIZE, wait_until

pytestmark = pytest.mark.ssh
NEVER = 3600.0


def dashboard(host) -> MtpApp:
    session = open_session(host.config)
    context = AppContext("lab", host=host.config, session=session)
    return MtpApp(feed_for_host(session, every_s=NEVER, slow_every_s=NEVER), context, cursor_blink=False, keymap={})


def pane_text(app) -> str:
    """The GPU pane's content as plain text."""
    from rich.console import Console

    console = Console(width=156, record=True, color_system=None)
    console.print(app.screen.query_one("#gpus").renderable)
    return console.export_text()


async def test_the_gpu_pane_follows_the_servers_load_over_ssh(lab_process):
    lab_process.lab.install(NVIDIA_SMI)
    lab_process.wait_ready()
    app = dashboard(lab_process)
    async with app.run_test(size=SIZE) as pilot:
        gpus = app.live.gpus
        await wait_until(pilot, lambda: len(gpus.latest) == 2, timeout=30)
        assert all(30 * 1024 < gpu.memory_used_mib < 49_140 for gpu in gpus.latest)  # the server's startup
        idle_power = gpus.latest[0].power_w
        users = lab_process.lab.start_users()
        try:
            await wait_until(pilot, lambda: (gpus.latest[0].utilization_pct or 0) > 70, timeout=60)
        finally:
            os.killpg(users.pid, signal.SIGKILL)
            users.wait()
        assert gpus.latest[0].power_w > idle_power + 100 and gpus.problem is None
        assert len(gpus.utilization[0]) >= 3  # polled again and again over the one connection
        await pilot.pause(0.6)
        text = pane_text(app)
        assert "0 RTX A6000" in text and "1 RTX A6000" in text and "/300 W" in text and "°C" in text
        assert app.screen.query_one("#gpus").border_subtitle == "utilisation · memory · temperature · power"


async def test_a_host_without_nvidia_smi_says_so_once(lab_process):
    app = dashboard(lab_process)
    async with app.run_test(size=SIZE) as pilot:
        gpus = app.live.gpus
        await wait_until(pilot, lambda: gpus.readings == 1, timeout=30)
        await pilot.pause(3.5)  # two polls' worth: a missing nvidia-smi is not asked again at once, nor said again
        assert gpus.readings == 1 and gpus.latest == ()
        text = pane_text(app)
        assert text.strip() == "this host has no nvidia-smi on the PATH of its SSH sessions: no live GPU figures"
        assert not any("nvidia" in note.message for note in app._notifications)  # no toast for it either
