"""`mtptui demo`'s run: per-run files, the simulated server in the bad state, its feed, a clean stop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mtptui.config import load_host_file
from mtptui.errors import UserError
from mtptui.ops.demo import BAD_PROFILE, DemoRun, demo_speed
from mtptui.ops.feed import HostStatus, LogData
from mtptui.sglang.flags import FlagSet, diff_flagsets
from mtptui.sglang.unit import read_unit, unit_flagset

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
    assert not diff_flagsets([("unit", unit), ("restored", restored)]).rows and unit.env == {"SGLANG_ENABLE_SPEC_V2": "1"}
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


async def test_the_simulated_server_runs_the_bad_profile_and_stops_cleanly(tmp_path: Path) -> None:
    run = DemoRun.prepare(tmp_path, speed=200)
    process = run.start()
    feed = run.feed(with_load=False)
    seen = b""
    statuses: list[HostStatus] = []
    try:
        async def read() -> None:
            nonlocal seen
            async for item in feed.items():
                if isinstance(item, LogData):
                    seen += item.data
                elif isinstance(item, HostStatus):
                    statuses.append(item)
                if READY in seen and statuses and statuses[-1].launch_source == "server_info":
                    await feed.close()

        await asyncio.wait_for(read(), 60)
    finally:
        status = run.stop()
    assert b"--speculative-num-steps 1" in seen or b"speculative_num_steps=1" in seen
    assert statuses[0].service == f"process pid {process.pid}" and statuses[0].service_state == "running"
    launch = statuses[-1].launch
    assert launch.get("--speculative-num-steps") == 1 and launch.get("--max-running-requests") == 1
    assert status is not None and process.poll() is not None
    assert run.service() == (f"process pid {process.pid}", f"exited (status {process.returncode})")
