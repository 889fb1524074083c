"""The drain-aware restart on the lab host behind the real gateway: smg on the host's 127.0.0.1:30080 in front of
the unit's server (30000) and a second replica started by hand (30001), a steady streamed load through the
gateway (tests/stream_load.py, in the host's network namespace) while `mtptui restart lab --profile restored`
runs. Drained: 0 failed, 0 cut; the same restart with --no-gateway cuts requests. A two-arm `mtptui tune` under
the same load drains each of its restarts the same way.

The unit runs with ``KillMode=mixed`` and ``TimeoutStopSec=3``: in the lab's nspawn machine systemd cannot kill a
control group ("Failed to kill control group ... Input/output error"), so the default control-group stop is not
faithfully modelled; under mixed the server drains on SIGTERM while the gateway keeps sending it requests, and
systemd's SIGKILL at the stop timeout cuts the ones in flight (what a plain restart costs).

The rig (unit, replica, gateway) is built once for the module (``rig``); before each test ``ensure`` checks it
and repairs only what the last test changed: the host file's gateway, the unit (the restored profile under
KillMode=mixed, ready, idle), the replica, and the real smg gateway with both workers ready."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
import tomli_w
import tomllib

from mtptui.sim.refuse import REFUSE_ENV
from tests.gateway_lab import (GATEWAY, REPLICA, REPLICA_PORT, SERVER, SMG_LAUNCH_SETTLE, LabLoad as Load,
                               lab_gateway_lists,
                               lab_gateway_shows, start_lab_replica as start_replica,
                               start_lab_replicas_gateway as start_gateway, stop_lab_gateway,
                               with_lab_gateway as with_gateway)
from tests.lab import API_PORT, Lab, LabHost, operator_env, prepare_lab_host
from tests.smg_venv import OLD_ROUTERS
from tests.sshd import ROOT
from tests.lab.hosts import UNIT
from tests.test_lab_systemd import show, unit_text

pytestmark = pytest.mark.ssh

STOP = "[Service]\nKillMode=mixed\nTimeoutStopSec=3\n"
# smg keeps a removed worker listed ``draining`` this long before it drops it (its default: 5 s, which every removal
# here waited out). What the drained restarts prove follows either way: mtptui's own wait until the server holds
# no request, and that none was cut.
DRAIN_SETTLE_S = 1


def run_mixed_unit(host: LabHost, tries: int = 3) -> None:
    """The restored profile from the unit under KillMode=mixed. A start right after the stop of a control-group
    unit failed now and then with 219/CGROUP here while two labs shared one cgroup tree (each machine now has
    its own: tests/lab/machine.py); a failed start is still tried again, with the failed state reset."""
    host.unit_file.write_text(unit_text(host, "restored").replace("[Service]\n", STOP))
    host.lab.systemctl("daemon-reload")
    for _ in range(tries):
        before = len(host.log_text())
        host.lab.machine.run("systemctl", "reset-failed", UNIT)
        host.lab.machine.run("systemctl", "restart", UNIT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if "ready to roll" in host.log_text()[before:]:
                return
            if show(host, "ActiveState")["ActiveState"] == "failed":
                break
            time.sleep(0.3)
        time.sleep(1)
    raise AssertionError(f"{UNIT} did not start under KillMode=mixed:\n{host.log_text()[-2000:]}")


def exec_argv(host: LabHost) -> str:
    """The command line of the unit's ExecStart= as systemd holds it (its argv[] field)."""
    shown = show(host, "ExecStart")["ExecStart"]
    return shown.partition("argv[]=")[2].partition(" ; ")[0]


HTTP_STATUSES = """
import sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
def status(url):
    try:
        return urllib.request.urlopen(url, timeout=5).status
    except Exception:
        return 0
with ThreadPoolExecutor(len(sys.argv) - 1) as pool:
    print(" ".join(str(code) for code in pool.map(status, sys.argv[1:])))
"""


def http_statuses(host: LabHost, *urls: str) -> list[int]:
    """The status of GET of each of ``urls`` from the host itself (0: no answer), asked at once: SGLang's /health
    answers after a one-token generation, a second or more."""
    out = host.lab.run(sys.executable, "-c", HTTP_STATUSES, *urls).stdout.split()
    return [int(code) if code.isdigit() else 0 for code in out] if len(out) == len(urls) else [0] * len(urls)


def http_status(host: LabHost, url: str) -> int:
    """The status of GET ``url`` from the host itself (0: no answer)."""
    return http_statuses(host, url)[0]


def held(host: LabHost, port: int = API_PORT) -> int | None:
    """The requests a server of the host holds by its own count (/v1/loads: running + waiting), None: no answer."""
    status, body = host.lab.api("/v1/loads", port=port)
    if status != 200:
        return None
    aggregate = json.loads(body)["aggregate"]
    return int(aggregate["total_running_reqs"]) + int(aggregate["total_waiting_reqs"])


def until_serving(host: LabHost, *ports: int, timeout: float = 30) -> None:
    """Wait until each of the host's servers on ``ports`` holds a request (the load reaches it)."""
    deadline, waiting = time.monotonic() + timeout, set(ports)
    while waiting := {port for port in waiting if not held(host, port)}:
        assert time.monotonic() < deadline, f"no request reached the server on {sorted(waiting)} in {timeout:g} s"
        time.sleep(0.2)


def server_idle(host: LabHost, timeout: float = 15) -> bool:
    """True once the unit's server holds no request by its own count (/v1/loads), within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if held(host) == 0:
            return True
        time.sleep(0.5)
    return False


def unit_as_built(host: LabHost, health: int | None = None) -> bool:
    """The unit runs the restored profile under KillMode=mixed, as the rig built it, ready and idle (``health``:
    the status of its /health, when already asked)."""
    state = show(host, "ActiveState", "SubState", "KillMode", "TimeoutStopUSec", "NeedDaemonReload")
    return (state == {"ActiveState": "active", "SubState": "running", "KillMode": "mixed", "TimeoutStopUSec": "3s",
                      "NeedDaemonReload": "no"}
            and host.unit_file.read_text() == host.unit_built  # type: ignore[attr-defined]
            and exec_argv(host) == host.exec_built  # type: ignore[attr-defined]
            and (health if health is not None else http_status(host, f"{SERVER}/health")) == 200
            and server_idle(host))


def gateway_as_built(host: LabHost) -> bool:
    """The real smg gateway (not an older sglang-router) runs, with both workers ready in it."""
    gateway = host.gateway  # type: ignore[attr-defined]
    return (gateway.poll() is None and SMG_LAUNCH_SETTLE in gateway.args
            and "sglang_router.launch_router" not in gateway.args
            and lab_gateway_shows(host, {SERVER: "ready", REPLICA: "ready"}, timeout=1))  # every test leaves it so


def restart_gateway(host: LabHost) -> None:
    stop_lab_gateway(host.gateway)  # type: ignore[attr-defined]
    host.gateway = start_gateway(host, drain_settle_s=DRAIN_SETTLE_S)  # type: ignore[attr-defined]  (a test may
    # replace it)
    lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=60)


def build_unit(host: LabHost) -> None:
    run_mixed_unit(host)
    host.unit_built = host.unit_file.read_text()  # type: ignore[attr-defined]
    host.exec_built = exec_argv(host)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def rig(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabHost]:
    """Built once for the module: the unit's server (restored, KillMode=mixed) and a second replica, both ready in
    the real gateway; the host file names it."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        host = prepare_lab_host(lab, tmp_path_factory.mktemp("gateway-restart"), monkeypatch, "systemd")
        host.wait_ready()
        build_unit(host)
        start_replica(host)
        host.gateway = start_gateway(host, drain_settle_s=DRAIN_SETTLE_S)  # type: ignore[attr-defined]
        try:
            lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=60)
            yield host
        finally:
            stop_lab_gateway(host.gateway)  # type: ignore[attr-defined]
            lab.reset()


def ensure(host: LabHost) -> None:
    """Repair only what the last test changed: the host file, the unit, the replica, the gateway."""
    with_gateway(host)
    repaired = False
    server, replica = http_statuses(host, f"{SERVER}/health", f"{REPLICA}/health")
    if not unit_as_built(host, server):
        print("ensure: the unit rebuilt")
        build_unit(host)
        repaired = True
    if replica != 200:
        print("ensure: the replica started again")
        start_replica(host)
        repaired = True
    if repaired or not gateway_as_built(host):
        print("ensure: the gateway started again")
        restart_gateway(host)


@pytest.fixture
def behind_gateway(rig: LabHost) -> Iterator[LabHost]:
    """The module's rig, checked (and repaired where a test changed it) before each test."""
    ensure(rig)
    yield rig


def cli(host: LabHost, *args: str, profile: str = "restored") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "restart", "lab", "--profile", profile,
                           "--config", str(host.path), *args], capture_output=True, text=True, timeout=400, cwd=ROOT,
                          env=operator_env(host.lab))


def restart_under_load(host: LabHost, tmp: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    load = Load(host, tmp)
    until_serving(host, API_PORT, REPLICA_PORT)  # the load runs on both replicas
    done = cli(host, "--yes", "--json", *args)
    lab_gateway_lists(host, {SERVER: "ready"}, timeout=60)
    if "--no-gateway" not in args:
        # the load reaches the restarted server again (not awaited after a plain restart, whose check is the cut
        # requests, made at the stop: the failures may have opened the gateway's circuit breaker on it for a minute)
        until_serving(host, API_PORT)
    return done, load.tally()


def main_pid(host: LabHost) -> str:
    return show(host, "MainPID")["MainPID"]


def test_a_drained_restart_loses_no_request_and_a_plain_one_cuts_them(behind_gateway, tmp_path) -> None:
    host = behind_gateway
    before = main_pid(host)
    done, drained = restart_under_load(host, tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    steps = [e["step"] for e in report["events"]]
    order = [steps.index(s) for s in ("gateway_remove", "draining", "starting", "ready", "gateway_add",
                                      "gateway_ready", "canary")]
    assert order == sorted(order), steps
    assert report["gateway"]["removed"] and report["gateway"]["re_added"] and report["gateway"]["canary"]
    assert report["gateway"]["in_flight_at_stop"] == 0 and main_pid(host) != before
    assert report["plan"]["gateway"]["ready_peers"] == [REPLICA]
    assert drained["sent"] > 0 and drained["failed"] == 0 and drained["cut"] == 0, drained
    plain_done, plain = restart_under_load(host, tmp_path, "--no-gateway")
    assert plain_done.returncode == 0, plain_done.stderr
    assert "gateway_remove" not in [e["step"] for e in json.loads(plain_done.stdout)["events"]]
    assert plain["cut"] + plain["failed"] > 0, plain


def test_the_plan_shows_the_gateway_steps_and_what_the_stop_does(behind_gateway) -> None:
    host = behind_gateway
    shown = cli(host, "--dry-run", "--drain-timeout", "45")
    assert shown.returncode == 0, shown.stderr
    assert f"gateway: remove {SERVER} from the gateway at {GATEWAY}" in shown.stdout
    assert "at most 45 s (--drain-timeout)" in shown.stdout
    assert f"gateway, once ready: add {SERVER} back (POST /workers)" in shown.stdout
    assert "KillMode=mixed, TimeoutStopSec=3s; SIGTERM reaches SGLang's main process alone" in shown.stdout
    assert "SIGKILL to itself: systemd then shows the unit failed (signal 9)" in shown.stdout


def test_a_worker_that_never_drains_stops_the_restart_and_is_put_back(behind_gateway, tmp_path) -> None:
    host = behind_gateway
    before = main_pid(host)
    long = subprocess.Popen(["ip", "netns", "exec", host.lab.ns, sys.executable, "-c", LONG_REQUEST, SERVER],
                            env={**os.environ, **host.lab.session_env()}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        until_serving(host, API_PORT)  # the request runs on the server, straight, not through the gateway
        done = cli(host, "--yes", "--drain-timeout", "2")
    finally:
        long.kill()
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{SERVER} still held 1 requests 2 s after its removal from the gateway" in done.stderr, done.stderr
    assert "nothing was changed" in done.stderr and main_pid(host) == before
    assert f"adding {SERVER} back to the gateway" in done.stdout
    lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=30)


def test_the_last_ready_worker_is_restarted_only_with_yes(behind_gateway) -> None:
    host = behind_gateway
    removed = host.lab.run(sys.executable, "-c", DELETE_WORKER, GATEWAY, REPLICA)
    assert removed.returncode == 0, removed.stderr
    lab_gateway_lists(host, {REPLICA: "gone"}, timeout=30)
    before = main_pid(host)
    refused = cli(host)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.strip() == (f"mtptui: refusing to restart lab without --yes: {SERVER} is the last ready "
                                      f"worker of its model in the gateway at {GATEWAY}: the restart drops the "
                                      f"traffic it serves (no gateway steps)")
    assert main_pid(host) == before


@pytest.mark.parametrize("problem", ["unreachable", "not registered", "older router"])
def test_a_gateway_problem_stops_before_any_change_unless_no_gateway(behind_gateway, problem) -> None:
    host = behind_gateway
    if problem == "unreachable":
        with_gateway(host, url="http://127.0.0.1:30089")
        said = "cannot reach the gateway at http://127.0.0.1:30089"
    elif problem == "not registered":
        with_gateway(host, worker_url="http://127.0.0.1:30005")
        said = f"the gateway at {GATEWAY} lists no worker at http://127.0.0.1:30005"
    else:
        stop_lab_gateway(host.gateway)
        host.gateway = start_gateway(host, OLD_ROUTERS[1])  # sglang-router 0.2.4: its workers have no status
        lab_gateway_lists(host, {SERVER: None, REPLICA: None}, timeout=60)
        said = f"the gateway at {GATEWAY} is sglang-router 0.2.x"
    before = main_pid(host)
    refused = cli(host, "--yes")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert said in refused.stderr and "the restart stops before changing anything (--no-gateway restarts without " \
                                      "the gateway steps)" in refused.stderr, refused.stderr
    assert main_pid(host) == before
    if problem != "unreachable":
        return
    plain = cli(host, "--yes", "--no-gateway")  # what the operator may choose: the restart without the steps
    assert plain.returncode == 0, plain.stderr
    assert "the gateway steps are left out (--no-gateway)" in plain.stdout and main_pid(host) != before


def test_a_tune_behind_the_gateway_drains_every_arm_and_loses_no_request(behind_gateway, tmp_path) -> None:
    """Two arms and the restore, each restart drained, under the streamed load through the gateway (which reaches
    each arm while it is measured: the tune's plan says so)."""
    host = behind_gateway
    before, out = main_pid(host), tmp_path / "tune.json"
    load = Load(host, tmp_path)
    until_serving(host, API_PORT, REPLICA_PORT)  # the load runs on both replicas
    done = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "tune", "lab", "--config", str(host.path),
                           "--grid", "steps=2,3", "--concurrency", "1", "--requests", "1", "--max-tokens", "16",
                           "--canary-tokens", "8", "--drain-timeout", "30", "--yes", "--json", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT, env=operator_env(host.lab))
    lab_gateway_lists(host, {SERVER: "ready"}, timeout=60)
    until_serving(host, API_PORT)  # the load reaches the restored server again
    tally = load.tally()
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"every restart (each arm's, the final one) is drained through the gateway at {GATEWAY}" in done.stderr
    assert "the gateway's own traffic reaches it and mixes with the benchmark" in done.stderr
    assert done.stderr.count("waiting until the server holds no request (at most 30 s)") == 3  # --drain-timeout
    tune = json.loads(out.read_text())
    assert [arm["status"] for arm in tune["arms"]] == ["done", "done"], tune["arms"]
    assert tune["gateway"]["drained"] and tune["gateway"]["drain_timeout_s"] == 30
    restarts = tune["restarts"]
    assert sorted(r["arm"] for r in restarts[:-1]) == sorted(arm["name"] for arm in tune["arms"])
    assert restarts[-1]["arm"] is None and restarts[-1]["profile"] == "restored"  # the restore, last
    for restart in restarts:
        steps = restart["steps"]
        order = [steps.index(s) for s in ("gateway_remove", "draining", "starting", "ready", "gateway_add",
                                          "gateway_ready", "canary")]
        assert restart["ok"] and order == sorted(order), restart
        gateway = restart["gateway"]
        assert gateway["removed"] and gateway["re_added"] and gateway["canary"] and gateway["in_flight_at_stop"] == 0
    assert f"gateway: 3 of 3 restart(s) drained through the gateway at {GATEWAY}" in done.stdout
    assert tally["sent"] > 0 and tally["failed"] == 0 and tally["cut"] == 0, tally
    assert (tune["original"]["profile"], tune["kept"], tune["restore"]) == ("restored", "original",
                                                                             "lab runs restored again")
    assert main_pid(host) != before and http_status(host, f"{SERVER}/health") == 200
    lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=30)


# Streamed, so that the server drops it once the client is killed (as SGLang aborts a request whose client went
# away), and the next test finds the server idle.
LONG_REQUEST = """
import json, sys, urllib.request
body = json.dumps({"model": "default", "max_tokens": 20000, "ignore_eos": True, "stream": True,
                   "messages": [{"role": "user", "content": "Write a long story."}]}).encode()
request = urllib.request.Request(sys.argv[1] + "/v1/chat/completions", body, {"Content-Type": "application/json"})
for _ in urllib.request.urlopen(request, timeout=600):
    pass
"""

DELETE_WORKER = """
import json, sys, urllib.request
workers = json.load(urllib.request.urlopen(sys.argv[1] + "/workers", timeout=10))["workers"]
worker = next(w for w in workers if w["url"] == sys.argv[2])
urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/workers/" + worker["id"], method="DELETE"), timeout=10)
"""


def banner(panel) -> str:
    return panel.view.render().plain if panel.view is not None else ""


async def test_the_dashboard_shows_the_gateway_steps_live_in_the_restart_panel(behind_gateway) -> None:
    from mtptui.ui.screens.confirm import ConfirmScreen
    from tests.test_lab_dashboard import dashboard
    from tests.ui_fixtures.support import SIZE, wait_until

    host = behind_gateway
    app = dashboard(host)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.host is not None and "pid" in app.live.host.service,
                         timeout=90)
        await pilot.press("R")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=90)
        shown = app.screen.plain or ""
        assert f"gateway: remove {SERVER} from the gateway at {GATEWAY}" in shown
        assert "gateway, once ready: one canary request through the gateway" in shown
        await pilot.press("y")
        panel = app.screen.restart_panel
        seen: list[str] = []
        await wait_until(pilot, lambda: seen.append(banner(panel)) or panel.finished, timeout=120)
        assert panel.view.outcome == "ready", banner(panel)
        live = [text for text in seen if "out of gateway" in text]
        assert live and "out of gateway → draining → stopping" in live[0]
        assert "back in gateway → ready in gateway → canary" in live[0]
        assert {"gateway_remove", "draining", "gateway_add", "gateway_ready", "canary"} <= panel.view.seen
        assert any("✓ out of gateway → ✓ draining" in text for text in seen)
    lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=30)


async def test_the_dialog_asks_when_the_server_does_not_drain_and_going_on_restarts_it(behind_gateway) -> None:
    from mtptui.ui.screens.confirm import ConfirmScreen
    from tests.test_lab_dashboard import dashboard
    from tests.ui_fixtures.support import SIZE, wait_until

    host = behind_gateway
    before = main_pid(host)
    long = subprocess.Popen(["ip", "netns", "exec", host.lab.ns, sys.executable, "-c", LONG_REQUEST, SERVER],
                            env={**os.environ, **host.lab.session_env()}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    until_serving(host, API_PORT)  # the request runs on the server, straight, not through the gateway
    app = dashboard(host)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.live.host is not None and "pid" in app.live.host.service,
                             timeout=90)
            panel = app.screen.restart_panel
            panel.drain_timeout_s = 2
            await pilot.press("R")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=90)
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=60)
            assert app.screen.title_text == "The server did not drain"
            assert f"{SERVER} still held 1 requests 2 s after its removal" in app.screen.body.plain
            await pilot.press("y")  # stop it anyway
            await wait_until(pilot, lambda: panel.finished, timeout=120)
            assert panel.view.outcome == "ready", banner(panel)
    finally:
        long.kill()
    assert main_pid(host) != before
    lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=30)


def test_a_crash_after_the_drain_is_rolled_back_and_the_worker_is_added_back(behind_gateway) -> None:
    host = behind_gateway
    done = cli(host, "--yes", "--force", "--json", profile="no-extra-buffer")  # SGLang stops at start: a crash
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"] == "rolled_back", report["summary"]
    steps = [e["step"] for e in report["events"]]
    assert steps.index("gateway_remove") < steps.index("crashed") < steps.index("rolled_back") \
        < steps.index("gateway_add") < steps.index("gateway_ready")
    assert "canary" not in steps  # the canary is for a restart that went through, not for its rollback
    assert report["gateway"]["removed"] and report["gateway"]["re_added"]
    lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=30)


CANARY_STRAIGHT = """
import json, sys, urllib.request
body = json.dumps({"model": "default", "max_tokens": 8,
                   "messages": [{"role": "user", "content": "mtptui canary after a restart: say ok."}]}).encode()
request = urllib.request.Request(sys.argv[1] + "/v1/chat/completions", body, {"Content-Type": "application/json"})
try:
    print(urllib.request.urlopen(request, timeout=30).status)
except urllib.error.HTTPError as exc:
    print(exc.code)
"""


def with_refusing_profile(host: LabHost) -> str:
    """A profile like ``restored`` whose launch refuses the canary (the simulator's test switch): the new launch
    fails it, the one it rolls back to does not."""
    data = tomllib.loads(host.path.read_text())
    restored = data["profiles"]["restored"]
    flags = {**restored["flags"], "max-running-requests": 12}  # a command line of its own: the end state tells them
    data["profiles"]["refuses-canary"] = {**restored, "flags": flags, "note": "answers the restart's canary with 400",
                                          "env": {**restored.get("env", {}), REFUSE_ENV: "mtptui canary"}}
    host.path.write_text(tomli_w.dumps(data))
    return "refuses-canary"


def test_a_canary_failed_after_the_re_add_takes_the_worker_out_again_before_the_rollback(behind_gateway,
                                                                                         tmp_path) -> None:
    host = behind_gateway
    profile = with_refusing_profile(host)
    load = Load(host, tmp_path)
    until_serving(host, API_PORT, REPLICA_PORT)  # the load runs on both replicas
    done = cli(host, "--yes", "--json", profile=profile)
    lab_gateway_lists(host, {SERVER: "ready", REPLICA: "ready"}, timeout=60)
    until_serving(host, API_PORT)  # and reaches the server again once it is back in the gateway
    tally = load.tally()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"] == "rolled_back", report["summary"]
    assert f"the canary request through the gateway at {GATEWAY} failed (HTTP 400 from {SERVER}" in report["reason"]
    assert report["summary"].endswith(f"; {SERVER} was taken out of the gateway again for the rollback, and is "
                                      f"back in it, ready; the previous unit is on disk and pid "
                                      f"{main_pid(host)} runs the previous launch"), report["summary"]
    events = [(e["step"], e["launch"], e["message"]) for e in report["events"]]

    def first(step: str, launch: str, said: str = "") -> int:
        return next(i for i, (s, la, m) in enumerate(events) if s == step and la == launch and said in m)

    order = [first("gateway_ready", "target"), first("failed", "target", "canary"),
             first("rolling_back", "rollback"), first("gateway_remove", "rollback", "again before the rollback"),
             first("gateway_remove", "rollback", "out of the gateway again"),
             first("draining", "rollback", "drained: no request in flight"), first("starting", "rollback"),
             first("ready", "rollback"), first("rolled_back", "rollback"), first("gateway_add", "rollback"),
             first("gateway_ready", "rollback", "ready in the gateway again")]
    assert order == sorted(order), events
    gateway = report["gateway"]
    assert gateway["removed_again"] and gateway["in_flight_at_rollback"] == 0 and gateway["out"] is None
    assert gateway["canary"] is False and gateway["again_problem"] is None
    assert tally["sent"] > 0 and tally["failed"] == 0 and tally["cut"] == 0, tally  # none lost, rollback included
    assert unit_as_built(host), host.unit_file.read_text()  # the previous launch, as the rig built it
    assert REFUSE_ENV not in show(host, "Environment")["Environment"]
    assert host.lab.run(sys.executable, "-c", CANARY_STRAIGHT, SERVER).stdout.strip() == "200"
