"""The simulated server stops as its SGLang release does (mtptui.engines.sglang.surface_shutdown), seen by real streamed
clients: SIGTERM to the server drains it (every stream runs to its finish_reason, a new request is still served,
/health answers 503), with no bound even when SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT is set; SIGTERM to its process
group (systemd's default KillMode, a kill of the group) cuts every stream."""

from __future__ import annotations

import os
import signal
import time

import httpx
import pytest

from mtptui.engines.sglang.surface_shutdown import shutdown_of
from tests.simserver import launch_sim, profile_argv, version_args, READY_LINE
from tests.stream_load import StreamLoad
from tests.test_sglang_conformance import matches_some_template

VERSIONS = ("0.5.12.post1", "0.5.23")
# 200 tokens at the simulated server's ~50 tok/s: a stream lasts about 4 s, so a drain has work to wait for
MAX_TOKENS = 200


def _ready_sim(tmp_path, version: str, env: dict[str, str] | None = None):
    sim = launch_sim(tmp_path, profile_argv("restored", version), sim_args=version_args(version), env=env)
    assert sim.wait_for(READY_LINE), sim.log_text()[-2000:]
    return sim


@pytest.mark.parametrize("version", VERSIONS)
def test_sigterm_to_the_server_drains_every_stream_to_its_end(tmp_path, version) -> None:
    sim = _ready_sim(tmp_path, version, env={"SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT": "0.5"})  # not read by either
    facts = shutdown_of(version)
    load = StreamLoad(sim.url, clients=3, max_tokens=MAX_TOKENS)
    with load:
        time.sleep(1.0)  # every client's first stream is under way
        sim.proc.send_signal(signal.SIGTERM)
        assert sim.wait_for(facts.text("sigterm"), 10)
        assert httpx.get(sim.url + "/health", timeout=10).status_code == 503
        late = httpx.post(sim.url + "/v1/chat/completions", timeout=30, json={
            "model": "default", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8})
        load._stop.set()  # no new request after this one
    status = sim.wait_exit(60)
    tally = load.tally()
    assert tally.cut == tally.failed == 0 and tally.whole >= 3, tally.line()
    assert late.status_code == 200 and late.json()["choices"][0]["finish_reason"] == "length"  # served, not refused
    text = sim.log_text()
    assert facts.text("health_refused") in text
    draining = [line for line in text.splitlines() if "Gracefully exiting... Remaining number of requests" in line]
    assert len(draining) >= 2 and draining[-1].endswith("Remaining number of requests 0. Remaining requests "
                                                        "remaining_rids=[].")
    if version == "0.5.12.post1":
        assert status == -signal.SIGKILL and "Finished server process" not in text
    else:
        assert status == 0 and f"kill_process_tree called: parent_pid={sim.proc.pid}, include_parent=False" in text
        assert "Finished server process" in text


@pytest.mark.parametrize("version", VERSIONS)
def test_sigterm_to_the_process_group_cuts_every_stream(tmp_path, version) -> None:
    sim = _ready_sim(tmp_path, version)
    facts = shutdown_of(version)
    load = StreamLoad(sim.url, clients=3, max_tokens=MAX_TOKENS)
    with load:
        time.sleep(1.0)
        _term_with_children(sim.proc.pid)
        status = sim.wait_exit(30)
        load._stop.set()
    tally = load.tally()
    assert tally.whole == 0 and tally.cut >= 3, tally.line()
    assert status == -signal.SIGKILL
    text = sim.log_text()
    assert "crashed with exit code -15. Triggering SIGQUIT for cleanup..." in text and facts.text("sigquit") in text
    # the drain never ends: the dead scheduler ends the server first (its drain watchdog may speak once before
    # the subprocess watchdog notices, as in SGLang, whose two watchdogs race the same way)
    draining = [line for line in text.splitlines() if "Gracefully exiting... Remaining number of requests" in line]
    assert len(draining) <= 1 and "Remaining number of requests 0." not in text


def _term_with_children(pid: int) -> None:
    """SIGTERM to the server and its children at once: what a signal to its process group does."""
    children = [int(p) for p in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    for target in [pid, *children]:
        os.kill(target, signal.SIGTERM)


@pytest.mark.parametrize("version", VERSIONS)
def test_the_shutdown_lines_are_the_releases(version) -> None:
    facts = shutdown_of(version)
    rids = ["cd613e30d8f16adf91b7584a2265b1f5"]
    lines = [facts.text("sigterm"), facts.text("draining", 1, rids), facts.text("health_refused"),
             facts.text("child_crashed", "scheduler_0", 4242, -15), facts.text("sigquit")]
    if "kill_tree" in facts.texts:
        lines.append(facts.text("kill_tree", 1, False, 1))
    for line in lines:
        assert matches_some_template(line, version), line
    assert ("kill_tree" in facts.texts) == (version == "0.5.23")
