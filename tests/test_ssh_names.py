"""A host file's SSH names are names: a target, user or jump host can never become extra ssh arguments.

Inside an ordinary ``ProxyCommand ssh -W %h:%p bastion``, a target like ``gpu1.corp:22 -oProxyCommand=CMD x.corp``
was split into words after the expansion, and CMD ran on the operator's machine. ``ssh.target``, ``ssh.user``
and every ProxyJump hop are now refused at load unless they are a host (alias, address) or login name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.config.loader import parse_host
from mtptui.config.models import SSHConfig
from mtptui.errors import ConfigError
from tests.test_injection import BASE as HOST_FILE

ROOT = Path(__file__).resolve().parents[1]
BASE = HOST_FILE + "[ssh]\n"  # a process-managed host; its ssh table last
BAD_TARGETS = ["gpu1.corp:22 -oProxyCommand=/tmp/cmd x.corp", "-oProxyCommand=/tmp/cmd", "gpu1 x", "gpu1;id",
               "gpu1$(id)", "gpu1`id`", "gpu1|id", "gpu1\nx", "gpu1\tx", "", "gpu1'", 'gpu1"', "gpu1\u202e",
               "gpu1.corp:22", "user@gpu1"]
GOOD_TARGETS = ["gpu-lab", "gpu1.corp", "192.168.1.129", "::1", "fe80::1%eth0", "gpu_1", "ct129", "GPU.Example.COM."]
BAD_USERS = ["-oProxyCommand=x", "ana bob", "ana;id", "ana$(id)", "", "ana\n"]
GOOD_USERS = ["root", "ana.b", "svc-gpu", "ana@corp.example", "HOST$", "_sglang"]


def host_with(**ssh: str) -> str:
    return BASE + "".join(f"{key} = {json.dumps(value)}\n" for key, value in ssh.items())


@pytest.mark.parametrize("target", BAD_TARGETS)
def test_a_target_that_is_not_a_host_name_is_refused_at_load(target: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_host(host_with(target=target), "/hosts/evil.toml")
    message = str(error.value)
    assert message.startswith("/hosts/evil.toml:12: field 'ssh.target': ") and "not a host name" in message
    assert "Value error" not in message


@pytest.mark.parametrize("user", BAD_USERS)
def test_a_user_that_is_not_a_login_name_is_refused_at_load(user: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_host(host_with(target="gpu-lab", user=user), "/hosts/evil.toml")
    assert "field 'ssh.user': " in str(error.value) and "not a login name" in str(error.value)


@pytest.mark.parametrize("target", GOOD_TARGETS)
def test_host_names_aliases_and_addresses_still_load(target: str) -> None:
    for user in GOOD_USERS:
        assert parse_host(host_with(target=target, user=user)).ssh == SSHConfig(target=target, user=user)


@pytest.mark.parametrize("hop", ['"bastion -oProxyCommand=/tmp/cmd"', "-oProxyCommand=/tmp/cmd", "ana;id@bastion"])
def test_a_jump_host_that_is_not_a_name_is_refused(tmp_path: Path, hop: str) -> None:
    from mtptui.remote.ssh import SSHTransport

    config = tmp_path / "config"
    config.write_text(f"Host gpu\n    ProxyJump {hop}\n")
    with pytest.raises(ConfigError) as error:
        SSHTransport(SSHConfig(target="gpu"), ssh_config_files=[str(config)])
    assert "ProxyJump hop" in str(error.value) and "\n" not in str(error.value)


def test_a_target_with_options_runs_no_command_on_the_operators_machine(tmp_path: Path) -> None:
    """The issue's attempt, end to end: `mtptui check` with the bastion ProxyCommand of a real ~/.ssh/config."""
    marker, evil = tmp_path / "MARKER", tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\n")
    evil.chmod(0o755)
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "config").write_text("Host *.corp\n    ProxyCommand ssh -W %h:%p bastion\n")
    host = tmp_path / "evil.toml"
    host.write_text(host_with(target=f"gpu1.corp:22 -oProxyCommand={evil} x.corp"))
    env = {**{k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}, "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "check", "evil", "--config", str(host)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert not marker.exists(), "the target's ProxyCommand option ran a command on the operator's machine"
    assert done.returncode == 2 and "is not a host name" in done.stderr and "Traceback" not in done.stderr
