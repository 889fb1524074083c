"""A relaunch on the lab host with env names that `env(1)` would take as options: nothing of them executes.

The loader refuses such names (tests/test_injection.py); this bypasses it, as a previous process's environment
or a caller building the command would, and runs the process manager's relaunch command on the lab host.
"""

from __future__ import annotations

import json
import sys
import time

import pytest

from mtptui.config.models import ProcessServer, SSHConfig
from mtptui.remote.process import ProcessManager
from mtptui.remote.ssh import SSHTransport
from tests.lab import ALIAS
from tests.test_injection import OPTION_NAMES

pytestmark = pytest.mark.ssh


def wait_for_either(*paths, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not any(path.exists() for path in paths) and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.mark.parametrize("index", range(len(OPTION_NAMES)))
async def test_a_relaunch_with_an_option_shaped_env_name_runs_only_the_server(lab, monkeypatch, index: int):
    lab.reset()
    monkeypatch.setenv("HOME", str(lab.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    pwned, ran = lab.srv / f"pwned-{index}", lab.srv / f"ran-{index}"
    name = OPTION_NAMES[index].format(marker=pwned)
    manager = ProcessManager(SSHTransport(SSHConfig(target=ALIAS)),
                             ProcessServer(log_file=str(lab.srv / "sglang.log"), workdir=str(lab.srv)))
    record = ("import json, os, sys; open(sys.argv[1] + '.tmp', 'w').write(json.dumps(dict(os.environ))); "
              "os.rename(sys.argv[1] + '.tmp', sys.argv[1])")
    server = [sys.executable, "-c", record, str(ran)]  # the "server" records the environment it got
    try:
        await manager.launch(server, {name: "1", "GOOD": "yes"})
    finally:
        await manager.transport.close()
    wait_for_either(ran, pwned)
    assert not pwned.exists()
    environment = json.loads(ran.read_text())
    name, _, value = f"{name}=1".partition("=")  # env(1) splits an assignment at its first "="
    assert environment["GOOD"] == "yes" and environment[name] == value  # an assignment, not an option
