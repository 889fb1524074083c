"""A systemd unit as read from a host: its file, its drop-ins, its EnvironmentFile=s; and what a host is
configured to start (``ConfiguredLaunch``: such a unit, or a command line).

The command that runs is the last non-empty ExecStart= over the unit file and its drop-ins in the order systemd
reads them (``systemctl edit`` writes ``UNIT.d/override.conf`` with an empty ``ExecStart=`` resetting the list
first): ``exec_holder`` is the file a restart rewrites. EnvironmentFile= variables are read after Environment=,
so they win over it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mtptui.engines.sglang.unit.unit import Unit


@dataclass(frozen=True)
class UnitFile:
    """The unit's main file (FragmentPath) and its text; ``effective`` is `systemctl cat` (with drop-ins).

    ``drop_ins`` are (path, text) of the drop-ins in systemd's order; ``env_files`` (path, text or None when
    unreadable) of the EnvironmentFile=s; ``name`` the unit's name (``%n`` and ``%i`` expand from it).
    """

    path: str
    text: str
    effective: str
    drop_ins: tuple[tuple[str, str], ...] = ()
    env_files: tuple[tuple[str, str | None], ...] = ()
    name: str | None = None

    def files(self) -> list[tuple[str, str]]:
        """(path, text) of every file of the unit, in the order systemd reads them."""
        return [(self.path, self.text), *self.drop_ins]

    def parsed(self, text: str | None = None) -> Unit:
        from mtptui.engines.sglang.unit import read_unit

        return read_unit(self.effective if text is None else text, name=self.name)

    def exec_holder(self) -> tuple[str, str]:
        """(path, text) of the file whose ExecStart= runs: the last one with a non-empty ExecStart=."""
        holders = [(path, text) for path, text in self.files() if self.parsed(text).exec_start is not None]
        return holders[-1] if holders else (self.path, self.text)

    def environment_before(self, holder: str) -> dict[str, str]:
        """Environment= as the files before ``holder`` leave it (what the holder's own Environment= adds to)."""
        before = []
        for path, text in self.files():
            if path == holder:
                break
            before.append(text)
        return self.parsed("".join(before)).environment if before else {}

    def file_environment(self) -> dict[str, tuple[str, str]]:
        """Name -> (value, file) of what the EnvironmentFile=s set (later files win)."""
        from mtptui.engines.sglang.unit.envfile import parse_environment_file

        env: dict[str, tuple[str, str]] = {}
        for path, text in self.env_files:
            for name, value in parse_environment_file(text or "").items():
                env[name] = (value, path)
        return env

    def environment(self) -> dict[str, str]:
        """What the unit's server gets: Environment=, then the EnvironmentFile=s over it."""
        return {**self.parsed().environment, **{k: v for k, (v, _) in self.file_environment().items()}}


@dataclass(frozen=True)
class ConfiguredLaunch:
    """What a host is configured to start, as its manager read it: a unit (``unit``) or a command line."""

    label: str  # the diff side's label: "unit:/etc/systemd/system/x.service", "command:server.launch_command"
    unit: UnitFile | None = None
    command: str | None = None
