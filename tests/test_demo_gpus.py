"""`mtptui demo` shows live GPUs: its feed polls the stand-in nvidia-smi (first on the demo's PATH), whose GPUs
hold what the demo's simulated server took once it is up."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mtptui.demo.run import DemoRun
from mtptui.ops.feed.items import GpuReading


async def test_the_demo_feed_reads_the_stand_in_gpus_of_its_server(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from mtptui.ops.connect import open_session

    run = DemoRun.prepare(tmp_path, speed=200)
    for name, value in run.server_environment().items():
        monkeypatch.setenv(name, value)
    run.start()
    feed = run.feed(open_session(run.host), with_load=False)
    readings: list[GpuReading] = []
    try:
        async def read() -> None:
            async for item in feed.items():
                if isinstance(item, GpuReading):
                    readings.append(item)
                    if item.gpus and item.gpus[0].memory_used_mib > 30 * 1024:
                        await feed.close()

        await asyncio.wait_for(read(), 60)
    finally:
        run.stop()
    first, last = readings[0], readings[-1]
    assert first.problem is None and [g.name for g in first.gpus] == ["NVIDIA RTX A6000"] * 2
    assert last.gpus[0].memory_total_mib == 49_140 and last.gpus[0].power_limit_w == 300.0
    assert not (run.run_dir / "gpu.json").exists()  # the server took its state file with it
