"""Load host files with tomllib, save them with tomli-w, and find a host by name."""

from __future__ import annotations

import os
from pathlib import Path

from mtptui.config.hosttext import dump_host, parse_host
from mtptui.config.models import HostConfig
from mtptui.config.files import HOST_FILE_LIMIT, read_bounded
from mtptui.config.save import write_host
from mtptui.config.paths import named_files, search_groups, search_path
from mtptui.errors import ConfigError, UnknownHost
from mtptui.suggest import closest

__all__ = ["UnknownHost", "dump_host", "find_host", "list_hosts", "load_host_file", "parse_host", "save_host"]


def load_host_file(path: str | os.PathLike[str]) -> HostConfig:
    """Read one host file; every failure (no regular file, over 1 MiB, not UTF-8) is a ConfigError naming it."""
    path = Path(path)
    data = read_bounded(path, "host file", HOST_FILE_LIMIT)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parse_host(text, str(path))


def save_host(host: HostConfig, path: str | os.PathLike[str]) -> None:
    """Write a host file atomically (temp file + rename), keeping a backup of the old one, its mode and its
    comments (only the changed profile tables are rewritten: mtptui.config.save)."""
    write_host(host, path)


def list_hosts(config_file: str | None = None) -> tuple[list[tuple[Path, HostConfig]], list[ConfigError]]:
    """Every readable host on the search path (first one wins per name) and the errors met."""
    hosts: dict[str, tuple[Path, HostConfig]] = {}
    errors: list[ConfigError] = []
    for path in search_path(config_file):
        try:
            host = load_host_file(path)
        except ConfigError as exc:
            errors.append(exc)
            continue
        hosts.setdefault(host.name, (path, host))
    return list(hosts.values()), errors


def _own_file_first(files: list[Path], name: str) -> list[Path]:
    return sorted(files, key=lambda path: path.stem != name)


def find_host(name: str, config_file: str | None = None) -> tuple[Path, HostConfig]:
    """The host called ``name``, searched in lookup order; a broken candidate file is reported.

    Within each place searched (--config, MTPTUI_CONFIG, a hosts directory), the file named after the host
    (``NAME.toml``) is read first, and when it defines the host no other file is read.
    """
    searched: list[Path] = []
    seen: list[str] = []  # the names the readable files define, for a did-you-mean
    named = named_files(config_file)
    for files in search_groups(config_file):
        searched += files
        for path in _own_file_first(files, name):
            if path.stem == name or path in named:  # the host's own file or one named: its errors are the user's
                host = load_host_file(path)
            else:
                try:
                    host = load_host_file(path)
                except ConfigError:
                    continue
            if host.name == name:
                return path, host
            seen.append(host.name)
    raise UnknownHost(name, searched, closest(name, seen))

