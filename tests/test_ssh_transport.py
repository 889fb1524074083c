"""SSHTransport against a real OpenSSH sshd on 127.0.0.1: commands, quoting, host keys, unreachable hosts."""

from __future__ import annotations

import subprocess

import pytest

from mtptui.remote.errors import ConnectError, ConnectionLost, HostKeyRefused
from mtptui.remote.shell import Command
from mtptui.remote.ssh import SSHTransport
from tests.sshd import free_port, keygen

pytestmark = pytest.mark.ssh
NASTY = ["a b", "it's", '"q"', "$HOME", "`id`", "$(id)", "a;b", "x && y", "*", "", "\\", "ß"]


def fingerprint(pub: str) -> str:
    """SHA256 fingerprint as ssh-keygen prints it."""
    out = subprocess.run(["ssh-keygen", "-lf", pub], capture_output=True, text=True, check=True).stdout
    return out.split()[1]


async def test_ssh_runs_commands_with_every_value_quoted(sshd):
    transport = SSHTransport(sshd.ssh_config())
    try:
        result = await transport.run(Command.of(["printf", "%s\\0", *NASTY]))
        assert result.ok and result.stdout.decode().split("\0")[:-1] == NASTY
        failed = await transport.run(Command.of(["sh", "-c", "echo oops >&2; exit 7"]))
        assert (failed.exit_status, failed.err) == (7, "oops\n")
        stdin = await transport.run(Command.of(["cat"], input=b"unit text\n"))
        assert stdin.stdout == b"unit text\n"
    finally:
        await transport.close()


async def test_ssh_reconnects_for_the_next_command_after_the_connection_died(sshd):
    transport = SSHTransport(sshd.ssh_config())
    try:
        stream = await transport.open_stream(Command.of(["sh", "-c", "echo up; sleep 30"]))
        assert await stream.read() == b"up\n"
        assert sshd.kill_connections() >= 1
        with pytest.raises(ConnectionLost, match="lost the connection to root@127.0.0.1"):
            while await stream.read():
                pass
        assert (await transport.run(Command.of(["echo", "back"]))).out == "back\n"
    finally:
        await transport.close()


async def test_ssh_unknown_host_key_is_refused_naming_host_and_fingerprint(sshd, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    transport = SSHTransport(sshd.ssh_config(known_hosts_file=str(empty)))
    with pytest.raises(HostKeyRefused) as refused:
        await transport.run(Command.of(["true"]))
    message = str(refused.value)
    assert message.startswith(f"refusing to connect to 127.0.0.1:{sshd.port}: its host key ssh-ed25519 ")
    assert fingerprint(str(sshd.host_key) + ".pub") in message and "is not in" in message
    assert "\n" not in message and not refused.value.changed and empty.read_text() == ""


async def test_ssh_changed_host_key_is_refused_even_when_asked(sshd, tmp_path):
    other = keygen(tmp_path / "other_key")
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{sshd.port} {' '.join(other.split()[:2])}\n")
    asked = []
    transport = SSHTransport(sshd.ssh_config(known_hosts_file=str(known), known_hosts="ask"),
                             accept_host_key=lambda question: asked.append(question) or True)
    with pytest.raises(HostKeyRefused, match="its host key is now ssh-ed25519 SHA256:") as refused:
        await transport.run(Command.of(["true"]))
    assert refused.value.changed and asked == []
    assert fingerprint(str(sshd.host_key) + ".pub") in str(refused.value)


async def test_ssh_ask_policy_connects_only_after_an_explicit_yes(sshd, tmp_path):
    known = tmp_path / "known_hosts"
    no = SSHTransport(sshd.ssh_config(known_hosts_file=str(known), known_hosts="ask"), accept_host_key=lambda q: False)
    with pytest.raises(HostKeyRefused):
        await no.run(Command.of(["true"]))
    questions = []

    async def yes(question):
        questions.append(question)
        return True

    transport = SSHTransport(sshd.ssh_config(known_hosts_file=str(known), known_hosts="ask"), accept_host_key=yes)
    try:
        assert (await transport.run(Command.of(["echo", "ok"]))).out == "ok\n"
    finally:
        await transport.close()
    assert questions[0].fingerprint == fingerprint(str(sshd.host_key) + ".pub")
    assert str(questions[0]).startswith(f"The host key of 127.0.0.1:{sshd.port} is not known")
    assert known.read_text().startswith(f"[127.0.0.1]:{sshd.port} ssh-ed25519 ")
    strict = SSHTransport(sshd.ssh_config(known_hosts_file=str(known)))  # the accepted key is now known
    try:
        assert (await strict.run(Command.of(["true"]))).ok
    finally:
        await strict.close()


async def test_ssh_strict_policy_never_asks(sshd, tmp_path):
    asked = []
    transport = SSHTransport(sshd.ssh_config(known_hosts_file=str(tmp_path / "none")),
                             accept_host_key=lambda q: asked.append(q) or True)
    with pytest.raises(HostKeyRefused):
        await transport.run(Command.of(["true"]))
    assert asked == []


async def test_ssh_config_alias_names_the_host_port_and_user(sshd, tmp_path):
    config = tmp_path / "ssh_config"
    config.write_text(f"Host gpu-box\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User root\n"
                      f"  IdentityFile {sshd.client_key}\n  UserKnownHostsFile none\n")
    alias = sshd.ssh_config(target="gpu-box", port=None, user=None, identity_file=None)
    transport = SSHTransport(alias, ssh_config_files=[str(config)])
    try:
        assert (await transport.run(Command.of(["whoami"]))).out == "root\n"
    finally:
        await transport.close()
    # "UserKnownHostsFile none" in ssh_config cannot switch verification off
    unknown = SSHTransport(sshd.ssh_config(target="gpu-box", port=None, user=None, identity_file=None,
                                           known_hosts_file=str(tmp_path / "empty")), ssh_config_files=[str(config)])
    with pytest.raises(HostKeyRefused):
        await unknown.run(Command.of(["true"]))


async def test_ssh_closed_port_is_one_sentence(sshd):
    transport = SSHTransport(sshd.ssh_config(port=free_port()))
    with pytest.raises(ConnectError, match=r"^cannot connect to root@127\.0\.0\.1:\d+: connection refused$") as failed:
        await transport.run(Command.of(["true"]))
    assert failed.value.retriable


async def test_ssh_wrong_key_is_refused_without_retry(sshd, tmp_path):
    keygen(tmp_path / "stranger")
    transport = SSHTransport(sshd.ssh_config(identity_file=str(tmp_path / "stranger")))
    with pytest.raises(ConnectError, match="cannot log in to root@127.0.0.1:.*no key was accepted") as failed:
        await transport.run(Command.of(["true"]))
    assert not failed.value.retriable
