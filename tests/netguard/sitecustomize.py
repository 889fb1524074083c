"""Test-only guard, loaded by every Python process the tests start: refuse connections off loopback.

The tests put this folder on PYTHONPATH (see tests/conftest.py), so a subprocess such as `mtptui diff HOST`
cannot reach a real host even if a test names one by mistake (configs/ct129.toml names a private address).
"""

import ipaddress
import socket

_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex


def _allowed(address) -> bool:
    if not isinstance(address, tuple):  # AF_UNIX paths and the like
        return True
    host = address[0]
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return host == "localhost"


def _guard(address) -> None:
    if not _allowed(address):
        raise ConnectionRefusedError(111, f"test network guard: connection to {address[0]} refused (loopback only)")


def _guarded_connect(self, address):
    _guard(address)
    return _connect(self, address)


def _guarded_connect_ex(self, address):
    _guard(address)
    return _connect_ex(self, address)


socket.socket.connect = _guarded_connect
socket.socket.connect_ex = _guarded_connect_ex
