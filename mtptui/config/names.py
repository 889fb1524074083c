"""Host and user names as SSH may receive them: a name from a host file never becomes more than one argument.

``ssh.target`` and ``ssh.user`` (and every ProxyJump hop) reach ssh_config's ``%h``/``%r`` and from there a
``ProxyCommand`` such as ``ssh -W %h:%p bastion``, which is split into words after the expansion: a target with
a space (``gpu1.corp:22 -oProxyCommand=CMD x.corp``) became extra options, and CMD ran on the operator's machine.
OpenSSH refuses such names since 9.6; these checks refuse them when the host file is loaded.
"""

from __future__ import annotations

import ipaddress
import re

HOST_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9._-]{0,251}[A-Za-z0-9_.])?")
"""A DNS name or an ~/.ssh/config alias: letters, digits, dot, dash and underscore, not starting with a dash."""
USER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._@-]{0,63}\$?")
"""A login name (POSIX portable characters, and @ for directory users, $ at the end for machine accounts)."""


def host_name(value: str) -> str:
    """``value`` when it is a host name, alias or IP address; a ValueError saying why otherwise."""
    if HOST_NAME.fullmatch(value) or _ip_address(value):
        return value
    raise ValueError(f"{value!r} is not a host name, ~/.ssh/config alias or IP address (letters, digits, '.', '-' "
                     f"and '_', not starting with '-'; no spaces or shell characters)")


def user_name(value: str) -> str:
    """``value`` when it is a login name; a ValueError saying why otherwise."""
    if USER_NAME.fullmatch(value):
        return value
    raise ValueError(f"{value!r} is not a login name (letters, digits, '.', '-', '_' and '@', not starting with '-'; "
                     f"no spaces or shell characters)")


def _ip_address(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True
