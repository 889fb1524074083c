"""What ``~/.ssh/config`` says about a target, read with asyncssh's own parser (so Host/Match rules behave alike).

mtptui lets asyncssh apply most of it itself (HostName, User, Port, IdentityFile). Three settings it reads here
because it must apply them its own way: ``UserKnownHostsFile`` (host keys are always checked by
mtptui.remote.hostkeys, whatever StrictHostKeyChecking says), ``ProxyJump`` (every jump host's key is checked the
same way) and ``ProxyCommand`` (run by mtptui.remote.proxy, so a cancelled connection cannot hang).
"""

from __future__ import annotations

import getpass
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mtptui.config.names import host_name, user_name

DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"


@dataclass(frozen=True)
class SSHConfigView:
    """The ssh_config settings of one target that mtptui applies itself."""

    hostname: str
    port: int
    user: str | None
    known_hosts_files: tuple[str, ...]
    proxy_jump: tuple[str, ...]  # hops in order, each ``[user@]host[:port]``; empty without ProxyJump
    proxy_command: tuple[str, ...] = ()  # ProxyCommand's words with %h, %p, %r expanded; empty without one


def default_config_files() -> list[str]:
    """``~/.ssh/config`` when it is readable (asyncssh's own default)."""
    path = Path("~/.ssh/config").expanduser()
    return [str(path)] if os.access(path, os.R_OK) else []


def read_ssh_config(target: str, port: int | None = None, user: str | None = None,
                    files: Sequence[str] | None = None) -> SSHConfigView:
    """The settings ssh_config gives ``target``; explicit ``port`` and ``user`` win, as on ssh's command line."""
    from asyncssh.config import SSHClientConfig

    paths = default_config_files() if files is None else list(files)
    try:
        local_user = getpass.getuser()
    except (KeyError, OSError):
        local_user = "root"
    config = SSHClientConfig.load(None, paths, False, False, False, local_user,
                                  user if user is not None else (), target, port if port is not None else ())
    known = config.get("UserKnownHostsFile") or [DEFAULT_KNOWN_HOSTS]
    jump = config.get("ProxyJump")
    hops = () if not jump or str(jump).lower() == "none" else tuple(h.strip() for h in str(jump).split(",") if h)
    for hop in hops:
        _check_hop(hop)
    found_user = config.get("User")
    proxy = str(config.get("ProxyCommand") or "")
    return SSHConfigView(hostname=str(config.get("Hostname", target)), port=int(str(config.get("Port", 22))),
                         user=None if found_user is None else str(found_user),
                         known_hosts_files=tuple(str(k) for k in _as_list(known)),
                         proxy_jump=hops,
                         proxy_command=() if proxy.lower() in ("", "none") else tuple(shlex.split(proxy)))


def split_hop(hop: str) -> tuple[str | None, str, int | None]:
    """``user@host:port`` of a ProxyJump hop as (user, host, port); missing parts are None."""
    user, _, rest = hop.rpartition("@")
    host, port = rest, None
    if rest.startswith("["):  # [ipv6]:port
        inside, _, after = rest[1:].partition("]")
        host, port = inside, int(after[1:]) if after.startswith(":") and after[1:].isdigit() else None
    elif rest.count(":") == 1:
        name, _, number = rest.partition(":")
        if number.isdigit():
            host, port = name, int(number)
    return user or None, host, port


def _check_hop(hop: str) -> None:
    """A ProxyJump hop is a host (and user) name like the target itself: a ValueError naming the hop otherwise."""
    user, host, _ = split_hop(hop)
    try:
        host_name(host)
        if user is not None:
            user_name(user)
    except ValueError as exc:
        raise ValueError(f"ProxyJump hop {hop!r}: {exc}") from None


def _as_list(value: object) -> list[object]:
    """ssh_config's value as a list (asyncssh gives UserKnownHostsFile as one, our default is one too)."""
    return list(value) if isinstance(value, (list, tuple)) else [value]
