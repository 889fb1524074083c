"""`mtptui demo --engine vllm`: the mission's story on a simulated vLLM host (configs/demo-vllm.toml).

The run writes the known-good unit in vLLM's words, starts the bad redeploy as vLLM's API-server module (the
stand-in `vllm` package runs the simulated vLLM), and the dashboard opens on it. What the dashboard reads of
an engine comes through the registry's dashboard view (its panes on vLLM: tests/test_ui_vllm.py and the tmux
test); these tests hold the vLLM demo's files, its server, its log and load, and a dashboard that opens on it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import httpx
import pytest

from mtptui.config import load_host_file
from mtptui.demo.run import BAD_PROFILE, DemoRun
from mtptui.engines.registry import launcher
from mtptui.engines.vllm.flags.command import split_command
from mtptui.engines.vllm.logparse import parse_text
from mtptui.ops.feed.items import LogChunk
from mtptui.engines.sglang.unit import read_unit

@pytest.fixture
def vllm_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    run = DemoRun.prepare(tmp_path, speed=200, engine="vllm")
    for name, value in run.server_environment().items():
        monkeypatch.setenv(name, value)
    yield run
    run.stop()


def test_the_known_good_unit_is_written_in_vllms_words(tmp_path: Path) -> None:
    run = DemoRun.prepare(tmp_path, speed=50, engine="vllm")
    host = load_host_file(run.host_path)
    assert (host.engine, run.unit_path.name, run.log_path.name) == ("vllm", "vllm-qwen.service", "vllm.log")
    unit = read_unit(run.unit_path.read_text(), run.unit_path.name)
    words = launcher("vllm").words(host, host.profile("restored"))
    assert unit.exec_argv == words
    launch = split_command(unit.exec_argv)
    assert launch is not None and not launch.serve and launch.entry == [sys.executable, "-m",
                                                                        "vllm.entrypoints.openai.api_server"]
    assert '--speculative-config "{\\"method\\": \\"mtp\\", \\"num_speculative_tokens\\": 3}"' in unit.text
    assert "Description=vLLM Qwen3.6-27B (MTP)" in unit.text
    bad = launcher("vllm").words(host, host.profile(BAD_PROFILE))
    assert '{"method": "mtp", "num_speculative_tokens": 1}' in bad and "--max-model-len" not in bad


async def test_the_bad_redeploy_serves_as_vllm_and_the_feed_carries_its_log(vllm_demo: DemoRun) -> None:
    from mtptui.ops.connect import open_session

    process = vllm_demo.start()
    feed = vllm_demo.feed(open_session(vllm_demo.host))
    seen = b""

    async def read() -> None:
        nonlocal seen
        async for item in feed.items():
            if isinstance(item, LogChunk):
                seen += item.data
            if b"SpecDecoding metrics:" in seen:
                await feed.close()

    await asyncio.wait_for(read(), 90)  # the demo's own load decodes; vLLM logs every 10 s
    cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")[:-1]
    assert [w.decode() for w in cmdline] == vllm_demo.launch_argv(BAD_PROFILE)
    events = parse_text(seen.decode())
    args = next(e.fields["args"] for e in events if e.kind == "launch_args")
    assert args["speculative_config"] == {"method": "mtp", "num_speculative_tokens": 1} and args["max_num_seqs"] == 1
    spec = [e.fields for e in events if e.kind == "spec_decode"]
    assert spec and len(spec[0]["per_position"]) == 1 and vllm_demo.load is not None
    models = httpx.get(f"{vllm_demo.api_url}/v1/models").json()
    assert models["data"][0]["id"] == "qwen3.6-27b" and cmdline[0].decode() == sys.executable


async def test_the_dashboard_opens_on_the_vllm_demo_and_shows_its_log(vllm_demo: DemoRun) -> None:
    from mtptui.cli.commands.demo import demo_dashboard
    from mtptui.ops.connect import open_session
    from mtptui.ui.app import MtpApp
    from mtptui.ui.widgets.log_view import LogView

    vllm_demo.start()
    app = MtpApp(*demo_dashboard(vllm_demo, open_session(vllm_demo.host)), cursor_blink=False, keymap={})
    async with app.run_test(size=(160, 48)) as pilot:
        view = app.screen.query_one(LogView)

        def shown() -> str:
            return "\n".join(view.buffer.texts)

        deadline = asyncio.get_running_loop().time() + 60
        while "Starting vLLM server on" not in shown():
            assert asyncio.get_running_loop().time() < deadline, shown()[-2000:]
            await pilot.pause(0.2)
        assert app.is_running
    assert "non-default args: {" in shown() and "(EngineCore pid=" in shown()
