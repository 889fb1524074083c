"""The health line against the lab host, on each supported SGLang version: the known-good profile is benched
first (the baseline, recorded in the operator's history by `mtptui bench`), then the bad redeploy runs; under a
steady load through the SSH tunnel the dashboard shows a red line naming the flags and the slowdown before any
key is pressed, and `R` turns it green. The host file asks for a shorter health window than the default 30 s
(``health_lasts_s``, as a canary host's would): the red comes as it must, sooner (the window's own rule is held
in tests/test_health.py)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from mtptui.bench import history
from mtptui.ops.connect import open_session
from mtptui.demo.load import DemoLoad
from mtptui.ops.feed.host import feed_for_host
from mtptui.ui.app import AppContext, MtpApp
from tests.health_support import health_of, line_of, restore_until_green, wait_until_speed_red
from tests.lab import UNIT, LabHost, lab_host_file, operator_env, start_server
from tests.sshd import ROOT
from tests.ui_fixtures.support import SIZE

pytestmark = pytest.mark.ssh
TIMEOUT_S = 120
LASTS_S = 12  # the host file's health window


@pytest.fixture
def lab_benched_then_redeployed(lab_each, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LabHost]:
    """The lab host (systemd) benched on its known-good profile, then running the bad redeploy's unit."""
    lab_each.reset()
    monkeypatch.setenv("HOME", str(lab_each.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    host = lab_host_file(lab_each, tmp_path / "lab.toml", "systemd")
    host.path.write_text(f"health_lasts_s = {LASTS_S}\n{host.path.read_text()}")
    start_server(host, "restored")
    host.wait_ready()
    bench = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", "lab", "--config", str(host.path),
                            "--requests", "3", "--max-tokens", "256"],
                           capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT, env=operator_env(lab_each))
    assert bench.returncode == 0, bench.stderr
    assert lab_each.run("systemctl", "stop", UNIT).returncode == 0
    start_server(host, "redeploy-1step")
    yield host
    lab_each.reset()


async def test_the_bad_redeploy_is_red_against_the_benched_baseline_and_restore_turns_it_green(
        lab_benched_then_redeployed) -> None:
    host = lab_benched_then_redeployed
    (baseline,) = history.load_runs()
    assert host.config.health_lasts_s == LASTS_S
    assert baseline["fingerprint"]["server_version"] == host.lab.version
    session = open_session(host.config)
    app = MtpApp(feed_for_host(session, every_s=1.0, slow_every_s=2.0),
                 AppContext("lab", host=host.config, session=session), cursor_blink=False, keymap={})
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        load = asyncio.create_task(DemoLoad(await session.api_url())(emit=_ignore))
        try:
            await wait_until_speed_red(pilot, app, TIMEOUT_S)
            line = line_of(app)
            assert health_of(app).state == "bad", line
            assert "≠ known-good: steps 1≠3, draft 2≠4, max-running 1≠16" in line and "1 step configured!" in line
            assert health_of(app).checks[1].state == "bad" and "(−" in health_of(app).checks[1].text

            await restore_until_green(pilot, app, posted, TIMEOUT_S)
            assert "runs the known-good profile (restored)" in line_of(app)
        finally:
            load.cancel()


async def _ignore(item) -> None:
    """The load is a feed source that emits nothing."""
