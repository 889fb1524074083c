"""Is the server up (mtptui.ops.server_up): real SGLang logs read by the parser, systemd's states as `systemctl show`
words them, the process manager's state read on this machine, and the log connection's own statuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtptui.config.models import ProcessServer
from mtptui.ops.feed.items import HostStatus
from mtptui.ops.server_up import ServerUp, server_up
from mtptui.remote.follow import ConnectionStatus
from mtptui.remote.local import LocalTransport
from mtptui.remote.process import ProcessManager
from mtptui.remote.service_state import ServiceState
from mtptui.remote.systemd_state import service_state
from mtptui.engines.sglang.logparse import parse_text
from mtptui.engines.sglang.state import ServerState

CONNECTED = ConnectionStatus("connected")
REFUSED = "cannot connect to gpu: Connection refused"
SERVING = "04-tp1-no-rank-prefix-prefill-decode-uvicorn-access.log"
CRASHED = "25-nextn-mtp-crash-sigquit-scheduler-exception-tp3.log"
LOADING = "17-multithread-loading-shards-load-weight-end-mla-kv-tp8.log"
# SGLang's lines as it drains on SIGTERM (0.5.12.post1), then SIGKILLs itself: systemd says failed (signal 9)
DRAINED = (
    "[2026-12-01 22:18:40] SIGTERM received. signum=None frame=None. Draining requests and shutting down...\n"
    "[2026-12-01 22:18:41] Gracefully exiting... Remaining number of requests 0.\n"
)
KILLED = {"LoadState": "loaded", "ActiveState": "failed", "SubState": "failed", "Result": "signal",
          "ExecMainStatus": "9", "NRestarts": "0", "MainPID": "0"}
EXITED = {**KILLED, "Result": "exit-code", "ExecMainStatus": "1"}
DEAD = {"LoadState": "loaded", "ActiveState": "inactive", "SubState": "dead", "Result": "success",
        "ExecMainStatus": "0", "NRestarts": "0", "MainPID": "0"}
RUNNING = {"LoadState": "loaded", "ActiveState": "active", "SubState": "running", "Result": "success",
           "ExecMainStatus": "0", "NRestarts": "0", "MainPID": "4242"}
ACTIVATING = {**RUNNING, "ActiveState": "activating", "SubState": "start"}
DEACTIVATING = {**RUNNING, "ActiveState": "deactivating", "SubState": "stop-sigterm"}


def log(text: str) -> ServerState:
    state = ServerState()
    state.apply_all(parse_text(text))
    return state


def status(state: ServiceState) -> HostStatus:
    return HostStatus("gpu", service_state=state.words, service_phase=state.phase)


def judged(props: dict[str, str], text: str, connection: ConnectionStatus = CONNECTED) -> ServerUp:
    return server_up(connection, status(service_state(props)), log(text))


def test_a_serving_log_on_a_running_unit_is_up(real_logs: Path) -> None:
    up = judged(RUNNING, (real_logs / SERVING).read_text())
    assert up == ServerUp("up") and up.down is None and up.offline is None


def test_a_failed_unit_whose_log_crashed_is_down_crashed(real_logs: Path) -> None:
    assert judged(EXITED, (real_logs / CRASHED).read_text()).down == "crashed"


def test_a_unit_systemd_calls_failed_that_was_not_told_to_stop_crashed(real_logs: Path) -> None:
    assert judged(EXITED, (real_logs / SERVING).read_text()) == ServerUp("down", "crashed")


def test_a_drained_server_systemd_calls_failed_by_signal_9_stopped(real_logs: Path) -> None:
    up = judged(KILLED, (real_logs / SERVING).read_text() + DRAINED)
    assert up == ServerUp("down", "stopped") and up.down == "stopped"


def test_an_inactive_unit_is_stopped_whatever_its_log_showed_last(real_logs: Path) -> None:
    assert judged(DEAD, (real_logs / SERVING).read_text()).down == "stopped"


@pytest.mark.parametrize("props, text, state", [
    (ACTIVATING, "", "starting"),
    (RUNNING, LOADING, "starting"),  # the unit runs, the log is loading weights
    (DEACTIVATING, SERVING, "stopping"),
    (RUNNING, "", "unknown"),  # a log that said nothing yet
    (RUNNING, CRASHED, "unknown"),  # the log crashed, the manager has not said the server is gone
])
def test_on_its_way_or_not_known(real_logs: Path, props: dict[str, str], text: str, state: str) -> None:
    up = judged(props, (real_logs / text).read_text() if text else "")
    assert up.state == state and up.down is None and up.offline is None


@pytest.mark.parametrize("connection, reason", [
    (ConnectionStatus("reconnecting", "connection lost", retry_in_s=2.0), "connection lost"),
    (ConnectionStatus("failed", REFUSED), REFUSED),
    (ConnectionStatus("failed"), "failed"),
])
def test_a_host_that_does_not_answer_is_offline_before_anything_it_said(
        real_logs: Path, connection: ConnectionStatus, reason: str) -> None:
    up = judged(DEAD, (real_logs / CRASHED).read_text(), connection)
    assert up == ServerUp("offline", reason) and up.offline == reason and up.down is None


@pytest.mark.parametrize("connection", [ConnectionStatus("connecting"), ConnectionStatus("stopped")])
def test_a_connection_on_its_way_or_ended_by_us_is_not_offline(real_logs: Path, connection) -> None:
    assert judged(RUNNING, (real_logs / SERVING).read_text(), connection) == ServerUp("up")


def test_no_status_yet_leaves_the_log_to_say(real_logs: Path) -> None:
    assert server_up(CONNECTED, None, log((real_logs / SERVING).read_text())) == ServerUp("up")
    assert server_up(CONNECTED, None, log((real_logs / CRASHED).read_text())) == ServerUp("unknown")


async def test_the_process_managers_word_for_an_exited_server(tmp_path: Path, real_logs: Path) -> None:
    """The process manager reads the pid file on this machine: its process is gone, so no server runs; port 1
    keeps it from taking another test's server on this machine for this one. The pid is the kernel's pid_max, which
    no process ever has: an exited process's pid comes round again on a busy machine (pid_max 32768 here), and a
    reused one is a live process (a stale pid file's hazard, which this test is not about)."""
    gone = Path("/proc/sys/kernel/pid_max").read_text().strip()
    (tmp_path / "sglang.pid").write_text(gone + "\n")
    manager = ProcessManager(LocalTransport(), ProcessServer(log_file=str(tmp_path / "sglang.log"),
                                                             pid_file=str(tmp_path / "sglang.pid")), port=1)
    state = await manager.state()
    crashed, drained = log((real_logs / CRASHED).read_text()), log((real_logs / SERVING).read_text() + DRAINED)
    assert server_up(CONNECTED, status(state), crashed) == ServerUp("down", "crashed")
    assert server_up(CONNECTED, status(state), drained) == ServerUp("down", "stopped")
