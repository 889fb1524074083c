"""ssh_config's ProxyCommand against a real sshd: it connects, says why it could not, and a connection cancelled at
any moment of its start finishes cancelling (on Python 3.11 asyncio's own subprocess start could hang there for
ever: a dashboard quit during a reconnect never ended). The cancellations run in a subprocess of their own, so a
hang is a failed test with a timeout, not a hung suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.config.models import SSHConfig
from mtptui.remote.errors import ConnectError
from mtptui.remote.shell import Command
from mtptui.remote.ssh import SSHTransport

pytestmark = pytest.mark.ssh

CANCELS = """
import asyncio, asyncio.base_subprocess, json, os, sys
from mtptui.config.models import SSHConfig
from mtptui.remote.shell import Command
from mtptui.remote.ssh import SSHTransport

# What the dashboard's quit does (asyncio.run's teardown): cancel every task; here at the worst moment, while
# asyncio connects a subprocess's pipes (where Python 3.11's own subprocess start never finished cancelling).
connect_pipes = asyncio.base_subprocess.BaseSubprocessTransport._connect_pipes
MAIN = []

async def cancel_everything_first(self, waiter):
    for task in asyncio.all_tasks():
        if task is not MAIN[0]:
            task.cancel()
    await connect_pipes(self, waiter)

asyncio.base_subprocess.BaseSubprocessTransport._connect_pipes = cancel_everything_first

def children():
    mine, found = str(os.getpid()), []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1] == mine:
                found.append(open(f"/proc/{entry}/cmdline").read().replace("\\0", " ").strip())
        except OSError:
            pass
    return [c for c in found if c]

async def outcome(config, ticks):
    transport = SSHTransport(config, ssh_config_files=[sys.argv[1]])
    task = asyncio.ensure_future(transport.connect())
    for _ in range(ticks):
        await asyncio.sleep(0)
    task.cancel()
    try:
        await asyncio.wait_for(asyncio.shield(task), 10)
        return "connected"
    except asyncio.CancelledError:
        return "cancelled"
    except asyncio.TimeoutError:
        print(json.dumps({"hung after": ticks}), flush=True)
        os._exit(3)
    finally:
        await transport.close()

async def main():
    MAIN.append(asyncio.current_task())
    config = SSHConfig(target="proxied", known_hosts="strict", keepalive_s=5)
    outcomes = [await outcome(config, ticks) for ticks in range(int(sys.argv[2]))]
    transport = SSHTransport(config, ssh_config_files=[sys.argv[1]])
    echoed = (await transport.run(Command.of(["echo", "through the proxy"]))).out.strip()
    await transport.close()
    print(json.dumps({"outcomes": outcomes, "echoed": echoed, "left": children()}))

asyncio.run(main())
"""


def proxied_config(sshd, tmp_path: Path, proxy: str) -> Path:
    """An ssh_config whose alias ``proxied`` reaches ``sshd`` only through ``proxy``."""
    path = tmp_path / "ssh_config"
    path.write_text(f"Host proxied\n    HostName 127.0.0.1\n    Port {sshd.port}\n    User root\n"
                    f"    IdentityFile {sshd.client_key}\n    UserKnownHostsFile {sshd.known_hosts}\n"
                    f"    ProxyCommand {proxy}\n")
    return path


def test_a_connection_cancelled_at_any_moment_of_its_proxy_start_finishes_and_leaves_no_proxy(sshd, tmp_path):
    config = proxied_config(sshd, tmp_path, "nc %h %p")
    run = subprocess.run([sys.executable, "-c", CANCELS, str(config), "24"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, f"a cancelled connection did not finish: {run.stdout} {run.stderr[-2000:]}"
    result = json.loads(run.stdout)
    assert set(result["outcomes"]) <= {"cancelled", "connected"}
    assert result["echoed"] == "through the proxy"
    assert result["left"] == []  # every ProxyCommand was stopped and reaped


async def test_a_failing_proxy_command_is_one_sentence_with_its_own_words(sshd, tmp_path):
    config = proxied_config(sshd, tmp_path, "sh -c 'echo bastion.corp: no route to host >&2; exit 1'")
    transport = SSHTransport(SSHConfig(target="proxied", known_hosts="strict"), ssh_config_files=[str(config)])
    with pytest.raises(ConnectError) as raised:
        await transport.run(Command.of(["true"]))
    await transport.close()
    message = str(raised.value)
    assert message.startswith("cannot connect to root@proxied")
    assert "its ProxyCommand said 'bastion.corp: no route to host'" in message


async def test_a_proxy_command_that_cannot_run_is_refused_without_retry(sshd, tmp_path):
    config = proxied_config(sshd, tmp_path, "/nonexistent/proxy %h %p")
    transport = SSHTransport(SSHConfig(target="proxied", known_hosts="strict"), ssh_config_files=[str(config)])
    with pytest.raises(ConnectError) as raised:
        await transport.run(Command.of(["true"]))
    await transport.close()
    assert not raised.value.retriable
    assert "cannot run its ProxyCommand '/nonexistent/proxy'" in str(raised.value)
