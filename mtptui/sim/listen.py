"""The listening socket of a simulated server, bound before anything else (engine-neutral).

The port is bound (not yet listening) first, so a second instance fails at once; clients get "connection
refused" until uvicorn starts, as with a real server.
"""

from __future__ import annotations

import socket

from mtptui.errors import UserError


def port_taken(host: str, port: int) -> UserError:
    return UserError(f"cannot listen on {host}:{port}: the port is already in use")


def hold_port(host: str, port: int) -> socket.socket:
    """Bind the server socket now (listening starts with uvicorn); a taken port is a UserError.

    Created with ``IPPROTO_TCP`` as ``loop.create_server`` does: asyncio sets TCP_NODELAY only on sockets whose
    ``proto`` says TCP, and an accepted socket inherits it. With proto 0 the first small write after the
    headers (the first SSE chunk) waited for the client's delayed ACK, ~20-40 ms on every kept-alive request.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48):  # EADDRINUSE on Linux / macOS
            raise port_taken(host, port) from None
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock


def start_listening(sock: socket.socket, host: str, port: int) -> None:
    """``listen()`` on the held socket; taken meanwhile (SO_REUSEADDR lets two bind) is a UserError."""
    try:
        sock.listen(2048)
    except OSError:
        raise port_taken(host, port) from None
