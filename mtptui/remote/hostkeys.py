"""known_hosts verification for the SSH transport: trusted keys come from a file, never from the network.

An unknown or changed host key is refused with one sentence naming the host and the key's fingerprint.
Under the "ask" policy an unknown key may be accepted by an explicit answer from the caller (a terminal
prompt, a modal); the accepted key is then appended to the known_hosts file. A changed key is always refused.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Sequence, Union

from mtptui.remote.errors import HostKeyRefused

if TYPE_CHECKING:
    from asyncssh import SSHKey


@dataclass(frozen=True)
class HostKeyQuestion:
    """What a caller is asked before an unknown host key is trusted."""

    host: str
    port: int
    key_type: str
    fingerprint: str
    known_hosts_file: str

    def __str__(self) -> str:
        return (f"The host key of {host_port(self.host, self.port)} is not known: {self.key_type} "
                f"{self.fingerprint}. Trust it and add it to {self.known_hosts_file}?")


AcceptHostKey = Callable[[HostKeyQuestion], Union[bool, Awaitable[bool]]]


def host_port(host: str, port: int | None) -> str:
    return host if port in (None, 22) else f"{host}:{port}"


def known_hosts_name(host: str, port: int | None) -> str:
    """The host field of a known_hosts line, as OpenSSH writes it."""
    return host if port in (None, 22) else f"[{host}]:{port}"


@dataclass
class SeenKey:
    """A host key the server offered that the known_hosts file does not trust."""

    host: str
    port: int
    key: SSHKey
    changed: bool

    @property
    def key_type(self) -> str:
        return str(self.key.get_algorithm())

    @property
    def fingerprint(self) -> str:
        return str(self.key.get_fingerprint("sha256"))


class KnownHosts:
    """The trusted keys of known_hosts files (ssh_config's UserKnownHostsFile may name several), read afresh for
    every connection; an accepted key is added to the first, as OpenSSH does."""

    def __init__(self, paths: str | Sequence[str] | None) -> None:
        names = [paths] if isinstance(paths, str) else list(paths or [])
        self.paths = [str(Path(p).expanduser()) for p in names or ["~/.ssh/known_hosts"]]
        self.path = self.paths[0]
        self.matched: dict[tuple[str, int], bool] = {}

    def match(self, host: str, addr: str, port: int) -> tuple[list[Any], ...]:
        """asyncssh's matching callable: the keys these files trust for ``host``."""
        import asyncssh

        found = [asyncssh.match_known_hosts(path, host, addr, port) for path in self.paths if os.path.isfile(path)]
        result = tuple(sum((list(part) for part in parts), []) for parts in zip(*found)) if found else ([], [], [])
        self.matched[(host, port or 22)] = bool(result[0] or result[1])  # asyncssh passes port 22 as None
        return result

    def has_entry(self, host: str, port: int) -> bool:
        return self.matched.get((host, port or 22), False)

    def add(self, seen: SeenKey) -> None:
        """Append an accepted key, as OpenSSH would (``[host]:port type base64``)."""
        path = Path(self.path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        key_type, blob = seen.key.export_public_key("openssh").decode().split()[:2]
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{known_hosts_name(seen.host, seen.port)} {key_type} {blob}\n")

    def refusal(self, seen: SeenKey, declined: bool = False) -> HostKeyRefused:
        where = host_port(seen.host, seen.port)
        if declined:
            message = (f"refusing to connect to {where}: you did not trust its host key {seen.key_type} "
                       f"{seen.fingerprint} (nothing was added to {self.path})")
        elif seen.changed:
            message = (f"refusing to connect to {where}: its host key is now {seen.key_type} {seen.fingerprint}, "
                       f"which does not match the key recorded in {self.path} (the key changed, or someone is "
                       f"in the middle; replace the entry only if you know why)")
        else:
            message = (f"refusing to connect to {where}: its host key {seen.key_type} {seen.fingerprint} is not "
                       f"in {self.path} (check the fingerprint and add it, or set known_hosts = \"ask\" to "
                       f"confirm it)")
        return HostKeyRefused(message, seen.host, seen.port, seen.fingerprint, seen.changed, seen.key_type, self.path)


async def ask(accept: AcceptHostKey | None, question: HostKeyQuestion) -> bool:
    """The caller's explicit answer; no callback means no."""
    if accept is None:
        return False
    answer = accept(question)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer is True
