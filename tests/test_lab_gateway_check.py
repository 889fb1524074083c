"""`mtptui check HOST` for a host behind the real gateway: smg runs on the lab host (its own loopback, reached only
through the SSH connection), in front of the lab's server; the check says it answers and lists this server."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import tomli_w
import tomllib

from tests.gateway_lab import GATEWAY_PORT, lab_gateway_lists as gateway_listing, start_lab_gateway as start_gateway
from tests.lab import API_PORT, LabHost, operator_env
from tests.sshd import ROOT

pytestmark = pytest.mark.ssh


def with_gateway(host: LabHost, **gateway: str) -> None:
    data = tomllib.loads(host.path.read_text())
    data["gateway"] = {"url": f"http://127.0.0.1:{GATEWAY_PORT}", **gateway}
    host.path.write_text(tomli_w.dumps(data))


def check_gateway(host: LabHost) -> dict:
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "check", "lab", "--config", str(host.path),
                             "--json"], capture_output=True, text=True, timeout=180, cwd=ROOT,
                            env=operator_env(host.lab))
    assert "Traceback" not in result.stderr, result.stderr
    checks = json.loads(result.stdout)["checks"]
    assert [c["name"] for c in checks][4:6] == ["api", "gateway"]
    return next(c for c in checks if c["name"] == "gateway")


def test_check_says_the_gateway_lists_this_server(lab_process) -> None:
    server = f"http://127.0.0.1:{API_PORT}"
    lab_process.wait_ready()
    start_gateway(lab_process, [server])
    gateway_listing(lab_process, {server: "ready"})
    with_gateway(lab_process)
    found = check_gateway(lab_process)
    assert found["status"] == "ok", found
    assert found["detail"].startswith(f"SMG (sglang-router 0.3 or newer) at http://127.0.0.1:{GATEWAY_PORT} lists "
                                      f"this server as {server} ready, healthy, load ")
    assert found["detail"].endswith("1 of 1 workers ready")


def test_check_fails_when_the_gateway_does_not_list_it_or_does_not_answer(lab_process) -> None:
    other = "http://127.0.0.1:30001"  # nothing listens there: the gateway keeps it pending
    start_gateway(lab_process, [])
    time.sleep(1)
    with_gateway(lab_process)
    missing = check_gateway(lab_process)
    assert missing["status"] == "fail"
    assert missing["detail"].startswith(f"the gateway at http://127.0.0.1:{GATEWAY_PORT} lists no worker for this "
                                        f"host (looked for 127.0.0.1:{API_PORT}")
    assert missing["fix"].startswith("register the server with the gateway (POST /workers with its url)")
    with_gateway(lab_process, worker_url=other)
    assert "lists no worker at http://127.0.0.1:30001" in check_gateway(lab_process)["detail"]
    data = tomllib.loads(lab_process.path.read_text())
    data["gateway"] = {"url": "http://127.0.0.1:30089"}
    lab_process.path.write_text(tomli_w.dumps(data))
    unreachable = check_gateway(lab_process)
    assert unreachable["status"] == "fail" and "30089" in unreachable["detail"], unreachable
