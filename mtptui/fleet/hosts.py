"""Which host profile an instance Prometheus scrapes belongs to: an explicit ``prometheus_instance`` in the
host file, else the API address (``api_url``; for a remote host whose API listens on loopback, the SSH
target and ssh_config's HostName with the API port)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from urllib.parse import urlsplit

from mtptui.config.models import HostConfig

HostEntry = tuple[Path, HostConfig]


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _loopback(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return name == "localhost"


def ssh_names(host: HostConfig) -> list[str]:
    """The SSH target and the HostName ssh_config gives it (an alias names no address by itself)."""
    ssh = host.ssh
    if ssh is None:
        return []
    names = [ssh.target]
    try:
        from mtptui.remote.sshconfig import read_ssh_config

        names.append(read_ssh_config(ssh.target, ssh.port, ssh.user).hostname)
    except Exception:  # noqa: BLE001 - an unreadable ssh_config only loses this way of matching
        pass
    return names


def instance_names(host: HostConfig) -> set[str]:
    """The ``instance`` labels that mean this host."""
    if host.prometheus_instance:
        return {host.prometheus_instance}
    parts = urlsplit(host.api_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = parts.hostname or ""
    if host.ssh is not None and _loopback(address):
        return {_hostport(name, port) for name in ssh_names(host)}
    return {_hostport(address, port)}


def host_index(hosts: list[HostEntry]) -> dict[str, HostEntry]:
    """Instance label → the first host (in lookup order) that claims it."""
    index: dict[str, HostEntry] = {}
    for entry in hosts:
        for name in instance_names(entry[1]):
            index.setdefault(name, entry)
    return index


def no_profile_hint(instance: str) -> str:
    """What a row without a host profile says."""
    return (f"no host profile for {instance}: add prometheus_instance = \"{instance}\" to its host file "
            f"(or an api_url with this address) to open its dashboard with Enter")
