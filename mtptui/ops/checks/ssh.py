"""SSH: the host answers, its key is the one known_hosts trusts, and it accepts our key (or the host is local)."""

from __future__ import annotations

import shlex

from mtptui.ops.checks import FAIL, OK, Context, Result
from mtptui.remote.errors import ConnectError, HostKeyRefused, LoginRefused
from mtptui.remote.hostkeys import known_hosts_name
from mtptui.remote.shell import Command
from mtptui.remote.transport import ReadOnlyTransport, Transport

NAME = "ssh"
KEYSCAN_TYPES = {"ssh-ed25519": "ed25519", "ssh-rsa": "rsa", "rsa-sha2-256": "rsa", "rsa-sha2-512": "rsa"}


async def check_ssh(ctx: Context) -> Result:
    transport = ctx.session.transport
    try:
        result = await ctx.run(Command.of(["id", "-un"], "log in"))
    except ConnectError as exc:
        return Result(NAME, FAIL, str(exc), ssh_fix(exc, ctx))
    ctx.user = result.check("id -un").out.strip() or None
    if ctx.host.ssh is None:
        return Result(NAME, OK, f"not used: {ctx.host.name} is this machine (running as {ctx.user})")
    return Result(NAME, OK, f"{transport.label}: logged in as {ctx.user}; {await _host_key(transport)}")


async def _host_key(transport: Transport) -> str:
    """The server's key as known_hosts trusts it, e.g. "host key ssh-ed25519 SHA256:... is in FILE"."""
    from mtptui.remote.ssh import SSHTransport

    inner = transport.inner if isinstance(transport, ReadOnlyTransport) else transport
    if not isinstance(inner, SSHTransport):
        return "host key known"
    try:
        key = (await inner.connect()).get_server_host_key()
        where = inner.known_hosts.path
    except (AttributeError, ConnectError):
        return "host key known"
    if key is None:
        return "host key known"
    return f"host key {key.get_algorithm()} {key.get_fingerprint('sha256')} is in {where}"


def ssh_fix(exc: ConnectError, ctx: Context) -> str:
    """What to do about a connection that failed, by why it failed."""
    target = ctx.host.ssh.target if ctx.host.ssh else ctx.host.name
    if isinstance(exc, HostKeyRefused):
        return _changed_key_fix(exc) if exc.changed else _unknown_key_fix(exc)
    if isinstance(exc, LoginRefused):
        return (f"install your public key on the host (ssh-copy-id {shlex.quote(target)}), or set ssh.identity_file "
                f"in {ctx.file_name} to a key it accepts")
    if exc.retriable:
        return f"check that {target} is up and its sshd answers (ssh -v {shlex.quote(target)} shows where it stops)"
    return f"fix the [ssh] settings in {ctx.file_name} or ~/.ssh/config (ssh -v {shlex.quote(target)} shows the same)"


def _unknown_key_fix(exc: HostKeyRefused) -> str:
    kind = KEYSCAN_TYPES.get(exc.key_type, exc.key_type.split("-")[0])
    port = ["-p", str(exc.port)] if exc.port not in (None, 22) else []
    keyscan = shlex.join(["ssh-keyscan", "-t", kind, *port, exc.host])
    return (f"check that {exc.fingerprint} is the host's own key (ssh-keygen -lf /etc/ssh/ssh_host_{kind}_key.pub "
            f"on its console), then add it with {keyscan} >> {shlex.quote(exc.known_hosts_file)} (or set "
            f"ssh.known_hosts = \"ask\" and accept it when asked)")


def _changed_key_fix(exc: HostKeyRefused) -> str:
    remove = shlex.join(["ssh-keygen", "-R", known_hosts_name(exc.host, exc.port), "-f", exc.known_hosts_file])
    return (f"find out why the host key changed before connecting again; only if the host was reinstalled, remove "
            f"the old key with {remove} and add the new one after checking its fingerprint")
