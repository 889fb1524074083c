"""`mtptui demo`'s run: per-run files, the simulated server in the bad state, its feed, a clean stop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mtptui.config import load_host_file
from mtptui.errors import UserError
from mtptui.demo.run import BAD_PROFILE, DemoRun, demo_speed
from mtptui.ops.feed.items import HostStatus, LogChunk
from mtptui.engines.sglang.flags import FlagSet, diff_flagsets
from mtptui.engines.sglang.unit import read_unit, unit_flagset

READY = b"The server is fired up and ready to roll!"


def test_prepare_writes_the_known_good_unit_and_a_local_host_file(tmp_path: Path) -> None:
    run = DemoRun.prepare(tmp_path, speed=50)
    assert run.run_dir.parent == tmp_path
    host = load_host_file(run.host_path)
    port = int(host.api_url.rsplit(":", 1)[1])
    assert host.server.log_file == str(run.log_path) and host.log.path == str(run.log_path)
    assert all(profile.flags["port"] == port for profile in host.profiles.values())
    unit = unit_flagset(read_unit(run.unit_path.read_text(), "sglang-qwen.service"), host.sglang_version)
    restored = FlagSet.from_profile(host.profile("restored"), host.sglang_version)
    assert not diff_flagsets([("unit", unit), ("restored", restored)]).rows
    assert unit.env == {"SGLANG_ENABLE_SPEC_V2": "1"}
    bad = FlagSet.from_profile(host.profile(BAD_PROFILE), host.sglang_version)
    differing = {row.flag for row in diff_flagsets([("unit", unit), ("bad", bad)]).rows}
    assert {"--speculative-num-steps", "--speculative-num-draft-tokens", "--mem-fraction-static",
            "--context-length", "--max-running-requests", "--mamba-full-memory-ratio"} <= differing


def test_demo_speed_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MTPTUI_DEMO_SPEED", "12.5")
    assert demo_speed() == 12.5
    for bad in ("fast", "0", "-1"):
        monkeypatch.setenv("MTPTUI_DEMO_SPEED", bad)
        with pytest.raises(UserError):
            demo_speed()


async def test_the_simulated_server_runs_the_bad_profile_and_stops_cleanly(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from mtptui.ops.connect import open_session

    run = DemoRun.prepare(tmp_path, speed=200)
    for name, value in run.server_environment().items():
        monkeypatch.setenv(name, value)
    process = run.start()
    feed = run.feed(open_session(run.host), with_load=False)
    seen = b""
    statuses: list[HostStatus] = []
    try:
        async def read() -> None:
            nonlocal seen
            async for item in feed.items():
                if isinstance(item, LogChunk):
                    seen += item.data
                elif isinstance(item, HostStatus):
                    statuses.append(item)
                if READY in seen and statuses and statuses[-1].launch_source.startswith("running pid"):
                    await feed.close()

        await asyncio.wait_for(read(), 60)
    finally:
        status = run.stop()
    assert b"speculative_num_steps=1," in seen
    last = statuses[-1]
    assert (last.host, last.service, last.service_state) == ("demo", f"process pid {process.pid}", "running")
    assert last.launch_source == f"running pid {process.pid}" and last.version == "0.5.12.post1"
    assert last.launch.get("--speculative-num-steps") == 1 and last.launch.get("--max-running-requests") == 1
    assert last.launch.env == {"SGLANG_ENABLE_SPEC_V2": "1"}
    assert status is not None and process.poll() is not None
    assert run.service() == (f"process pid {process.pid}", f"exited (status {process.returncode})")


async def test_a_configured_local_host_is_followed_through_its_session(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`mtptui HOST` for a host without SSH: the remote layer's follower, the process manager, /server_info."""
    from mtptui.ops.connect import open_session
    from mtptui.ops.feed.items import Connection
    from mtptui.ops.feed.host import feed_for_host

    run = DemoRun.prepare(tmp_path, speed=200)
    for name, value in run.server_environment().items():
        monkeypatch.setenv(name, value)
    process = run.start()
    feed = feed_for_host(open_session(load_host_file(run.host_path), readonly=True))
    seen, items, status = b"", [], None
    try:
        async def read() -> None:
            nonlocal seen, status
            async for item in feed.items():
                items.append(item)
                seen += item.data if isinstance(item, LogChunk) else b""
                status = item if isinstance(item, HostStatus) else status
                if READY in seen and status and status.started_at and status.launch_source.startswith("running"):
                    await feed.close()

        await asyncio.wait_for(read(), 60)
    finally:
        run.stop()
    assert Connection("connected") in items
    last = [i for i in items if isinstance(i, HostStatus)][-1]
    assert (last.host, last.service, last.service_state) == ("demo", f"process pid {process.pid}", "running")
    assert last.launch.get("--speculative-num-steps") == 1 and last.version == "0.5.12.post1"


def test_a_bad_theme_is_one_sentence() -> None:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "demo", "--theme", "neon"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 1 and result.stderr.startswith("mtptui: unknown theme 'neon' (themes: ")
    assert "mtptui-light" in result.stderr and "Traceback" not in result.stderr


def test_stop_also_ends_a_server_a_restart_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a restart (another process, named by the pid file), quitting the demo stops that server too."""
    import signal
    import subprocess
    import sys

    run = DemoRun.prepare(tmp_path, speed=200)
    for name, value in run.server_environment().items():
        monkeypatch.setenv(name, value)
    first = run.start()
    first.terminate()
    first.wait(30)
    # stands in for the server a `setsid nohup` relaunch left running in its own session
    relaunched = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    run.pid_path.write_text(f"{relaunched.pid}\n")
    assert run.service() == (f"process pid {relaunched.pid}", "running")
    run.stop(timeout_s=5)
    assert relaunched.wait(10) == -signal.SIGTERM and first.poll() is not None
