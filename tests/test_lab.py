"""The lab host itself, and the SSH client against it as operators configure it.

The lab's API listens only inside its network namespace; the operator reaches the host through the
``gpu-lab`` alias of a private ``~/.ssh/config`` (ProxyCommand, User, IdentityFile, UserKnownHostsFile) or
through a ProxyJump; host keys are checked against the file ssh_config names, whatever else it says.
"""

from __future__ import annotations

import uuid

import httpx
import pytest

from mtptui.config.models import SSHConfig
from mtptui.ops.connect import open_session
from mtptui.remote.errors import HostKeyRefused
from mtptui.remote.shell import Command
from mtptui.remote.ssh import SSHTransport
from tests.lab.hosts import ISOLATION_PROBE
from tests.lab import ALIAS, API_PORT, HOSTNAME

pytestmark = pytest.mark.ssh


def probe_operator_port(port: int) -> str:
    """A request to the operator's own 127.0.0.1:PORT, by a path no one else asks for (whatever listens there, if
    anything: another test's server may); the path, to look for in the lab's log."""
    path = f"{ISOLATION_PROBE}-{uuid.uuid4().hex}"
    try:
        httpx.get(f"http://127.0.0.1:{port}{path}", timeout=5)
    except httpx.HTTPError:
        pass
    return path


async def test_the_labs_api_answers_inside_the_lab_and_only_through_ssh_outside(lab_systemd):
    lab_systemd.wait_ready()
    assert lab_systemd.lab.api("/health")[0] == 200  # the host sees its server
    probe = probe_operator_port(API_PORT)  # before the session's request: its log line would come first
    async with open_session(lab_systemd.config, readonly=True) as session:
        url = await session.api_url()
        async with httpx.AsyncClient(timeout=10) as client:
            info = (await client.get(url + "/server_info")).json()
        where = await session.transport.run(Command.of(["cat", "/proc/net/tcp"]))
    assert url.startswith("http://127.0.0.1:") and not url.endswith(f":{API_PORT}")
    assert info["tp_size"] == 2 and info["speculative_num_steps"] == 1  # the bad redeploy, as the unit runs it
    assert f"{API_PORT:04X}" in where.out  # the host's own table of sockets has the API port listening
    log = lab_systemd.log_text()
    assert '"GET /server_info HTTP/1.1" 200' in log
    assert probe not in log  # the operator's own 127.0.0.1:30000 is not the lab's server


async def test_the_host_file_names_only_an_alias_and_ssh_config_supplies_the_rest(lab_process):
    config = lab_process.config
    assert config.ssh == SSHConfig(target=ALIAS)
    transport = SSHTransport(config.ssh)
    try:
        assert transport.label == f"root@{ALIAS}"
        assert transport.known_hosts.path == str(lab_process.lab.known_hosts)  # UserKnownHostsFile
        result = await transport.run(Command.of(["sh", "-c", "id -un; echo $MTPTUI_SIM_RELEASE; cat /proc/1/comm"]))
    finally:
        await transport.close()
    assert result.out.split() == ["root", lab_process.lab.version, "systemd"]  # the lab host's PID 1 is systemd


async def test_a_proxy_jump_is_honoured_and_both_hops_keys_are_checked(lab_process):
    lab = lab_process.lab
    key = lab.known_hosts.read_text().split(None, 1)[1]
    lab.known_hosts.write_text(f"{HOSTNAME} {key}")  # the jump host only: the final hop's key is unknown
    transport = SSHTransport(SSHConfig(target=f"{ALIAS}-jump"))
    try:
        refused = rf"refusing to connect to 127\.0\.0\.1: .* is not in {lab.known_hosts}"
        with pytest.raises(HostKeyRefused, match=refused):
            await transport.run(Command.of(["true"]))
        lab.known_hosts.write_text(f"{HOSTNAME} {key}127.0.0.1 {key}")
        result = await transport.run(Command.of(["sh", "-c", "echo $SSH_CONNECTION"]))
    finally:
        await transport.close()
    assert result.ok and result.out.split()[2] == "127.0.0.1" and result.out.split()[3] == "22"


async def test_strict_host_key_checking_no_in_ssh_config_does_not_turn_verification_off(lab_process):
    lab = lab_process.lab
    config = lab.home / ".ssh" / "config"
    config.write_text(config.read_text().replace("    User root\n", "    User root\n    StrictHostKeyChecking no\n", 1))
    lab.known_hosts.write_text("")
    transport = SSHTransport(SSHConfig(target=ALIAS))
    try:
        with pytest.raises(HostKeyRefused, match=rf"{HOSTNAME}: its host key ssh-ed25519 SHA256:\S+ is not in "
                                                 rf"{lab.known_hosts}"):
            await transport.run(Command.of(["true"]))
    finally:
        await transport.close()
    assert lab.known_hosts.read_text() == ""  # nothing was added behind the operator's back
