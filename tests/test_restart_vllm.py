"""`mtptui diff` and `mtptui restart` on a vLLM host: the simulated vLLM of `mtptui demo --engine vllm`, a real
server process under mtptui's process manager (started as `python -m vllm.entrypoints.openai.api_server` from the
stand-in `vllm` package), with the known-good systemd unit beside it (configs/demo-vllm.toml).

The diff reads the running process's command line, the unit's ExecStart= and the profile through vLLM's flag
model; the restart renders the profile's launch, relaunches it, follows vLLM's log to `Application startup
complete.` and answers /health; a launch the server refuses at start is rolled back to the previous one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.config import HostConfig
from mtptui.demo.run import BAD_PROFILE, DemoRun
from mtptui.ops.connect import open_session
from mtptui.ops.diff_live import live_diff
from mtptui.ops.restart.plan import plan_restart
from mtptui.ops.restart.run import Restarter
from tests.demo_server import running_demo, wait_healthy

SPEC = "--speculative-config"


@pytest.fixture
def vllm_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # VLLM_LOGGING_LEVEL: an engine variable the redeploy ran with, set nowhere else
    with running_demo(tmp_path, monkeypatch, "vllm", VLLM_LOGGING_LEVEL="INFO") as run:
        yield run


def _tokens(resolved: str) -> int:
    return int(json.loads(resolved)["num_speculative_tokens"])


def _cmdline(pid: int) -> list[str]:
    return [word.decode() for word in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]]


def test_diff_compares_the_running_vllm_with_its_unit_and_profile(vllm_host: DemoRun) -> None:
    run = subprocess.run([sys.executable, "-m", "mtptui", "--config", str(vllm_host.host_path), "diff", "demo-vllm",
                          "--json"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr  # diff(1): the sides differ
    data = json.loads(run.stdout)
    pid = vllm_host.pid_file_pid()
    assert data["engine"] == "vllm"
    assert data["sides"] == [f"running:pid {pid}", f"unit:{vllm_host.unit_path}", "profile:restored"]
    rows = {row["flag"]: row for row in data["rows"]}
    assert [_tokens(value) for value in rows[SPEC]["resolved"]] == [1, 3, 3]
    assert rows["--max-num-seqs"]["values"] == ["1", "16", "16"] and data["rows"][0]["flag"] == SPEC
    assert {"var": "VLLM_LOGGING_LEVEL", "values": ["INFO", None, None]} in data["env"]


async def test_without_a_pid_file_the_vllm_server_is_found_by_its_command_line(vllm_host: DemoRun) -> None:
    data = vllm_host.host.model_dump(mode="json", exclude_unset=True)
    del data["server"]["pid_file"]
    session = open_session(HostConfig.model_validate(data))
    found = await session.manager.server_process()
    assert found is not None and found.pid == vllm_host.pid_file_pid()
    assert (await live_diff(session, "restored")).running is not None


async def test_restart_renders_the_vllm_profile_and_comes_back_ready(vllm_host: DemoRun) -> None:
    session = open_session(vllm_host.host)
    plan = await plan_restart(session, "restored")
    assert plan.to_json()["engine"] == "vllm" and plan.diff is not None
    result = await Restarter(session, plan, timeout_s=120).run()
    assert result.outcome == "ready", result.summary()
    assert result.end is not None and result.end.launch == "new" and result.end.pid == result.pid
    assert _cmdline(result.pid) == vllm_host.launch_argv("restored")
    await wait_healthy(vllm_host.api_url)
    after = await live_diff(session, "restored")
    assert SPEC not in {row.flag for row in after.diff.rows}  # the running server now is the profile's
    assert after.running is not None and after.running.side.flagset.said[SPEC]["num_speculative_tokens"] == 3
    assert "ready" in [event.step for event in result.events]


async def test_a_start_vllm_refuses_is_rolled_back_to_the_previous_launch(vllm_host: DemoRun) -> None:
    data = vllm_host.host.model_dump(mode="json", exclude_unset=True)
    bad = json.loads(json.dumps(data["profiles"][BAD_PROFILE]))
    bad["flags"]["gpu-memory-utilization"] = 1.5  # argparse takes it; vLLM's CacheConfig refuses it at start
    data["profiles"]["too-much-memory"] = bad
    host = HostConfig.model_validate(data)
    before = vllm_host.pid_file_pid()
    session = open_session(host)
    result = await Restarter(session, await plan_restart(session, "too-much-memory"), timeout_s=120).run()
    assert result.outcome == "rolled_back", result.summary()
    assert result.end is not None and result.end.launch == "previous" and result.end.pid != before
    assert result.end.pid is not None and _cmdline(result.end.pid) == vllm_host.launch_argv(BAD_PROFILE)
    await wait_healthy(vllm_host.api_url)


# What a real vLLM 0.32.0 unit printed as systemd stopped it for a restart (its engine core force-killed under
# the API server's output handler), before the new server's first line (tests/test_lab_vllm_real.py).
ENGINE_DEAD = (
    "(APIServer pid=86) ERROR 12-02 13:59:14 [async_llm.py:906] AsyncLLM output_handler failed.\n"
    "(APIServer pid=86) ERROR 12-02 13:59:14 [async_llm.py:906] Traceback (most recent call last):\n"
    "(APIServer pid=86) ERROR 12-02 13:59:14 [async_llm.py:906]     raise self._format_exception(outputs) from None\n"
    "(APIServer pid=86) ERROR 12-02 13:59:14 [async_llm.py:906] vllm.v1.engine.exceptions.EngineDeadError: "
    "EngineCore encountered an issue. See stack trace (above) for the root cause.\n")
OLD_SHUTDOWN = (f"Stopping vllm.service - vLLM...\n{ENGINE_DEAD}"
                "Stopped vllm.service - vLLM.\nStarted vllm.service - vLLM.\n")


def _watched(text: str) -> tuple[str, str | None]:
    """(phase, crash reason) of a restart's watch that read ``text`` from the position taken before it."""
    from mtptui.engines.registry import launches
    from mtptui.ops.progress import StartupTracker

    parser, state = launches("vllm").watch()
    tracker = StartupTracker(lambda *args: None, state)
    for event in [*parser.feed(text.encode()), *parser.flush_pending([])]:
        tracker.apply(event)
    return tracker.state.phase, tracker.reason


def test_the_old_servers_shutdown_error_is_not_the_new_starts_crash() -> None:
    real = (Path(__file__).parent / "ui_fixtures" / "vllm-real.log").read_text()
    assert _watched(OLD_SHUTDOWN + real) == ("ready", None)
    phase, reason = _watched(real[:real.index("Application startup complete.")] + ENGINE_DEAD)
    assert phase == "crashed" and reason is not None and "EngineDeadError" in reason  # the new server's own


def test_the_old_servers_engine_stats_do_not_make_the_new_start_ready() -> None:
    """The old server writes its periodic engine-stats line between the watch's position and systemd's SIGTERM
    (the tune's grid on a loaded machine, CI): the new server, still importing, is not ready on that line, and
    nothing listens on its port yet."""
    real = (Path(__file__).parent / "ui_fixtures" / "vllm-real.log").read_text()
    old_stats = next(line for line in real.splitlines(keepends=True) if "Engine 000: Avg prompt throughput" in line)
    assert _watched(old_stats) == ("starting", None)
    assert _watched(old_stats + OLD_SHUTDOWN + real[:real.index("Application startup complete.")])[0] != "ready"
    assert _watched(old_stats + OLD_SHUTDOWN + real) == ("ready", None)
