"""The systemd manager: read the unit, write a new one atomically with a backup, reload, restart, enable.

Every systemctl call (and the unit write, and journalctl) carries the host's ``command_prefix`` (e.g. sudo).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from mtptui.config.models import SystemdServer
from mtptui.remote.shell import Command, script
from mtptui.remote.transport import Transport

# argv: TMP PATH BACKUP. New unit text on stdin. Backs the unit up (mode kept), writes the temp file next to
# it with the unit's mode, and renames it over the unit: a reader sees the old file or the new one, never half.
WRITE_UNIT = r"""set -e
tmp=$1; path=$2; backup=$3
if [ -n "$backup" ]; then cp -p -- "$path" "$backup"; fi
trap 'rm -f -- "$tmp"' EXIT
cat > "$tmp"
chmod --reference="$path" -- "$tmp" 2>/dev/null || chmod 644 -- "$tmp"
mv -f -- "$tmp" "$path"
trap - EXIT""".strip()


@dataclass(frozen=True)
class UnitFile:
    """The unit's main file (FragmentPath) and its text; ``effective`` is `systemctl cat` (with drop-ins)."""

    path: str
    text: str
    effective: str


class SystemdManager:
    """systemctl for one unit."""

    kind = "systemd"

    def __init__(self, transport: Transport, config: SystemdServer) -> None:
        self.transport, self.config = transport, config
        self.prefix = tuple(config.command_prefix)
        self.unit = config.unit

    def systemctl(self, *args: str, what: str = "", changes_host: bool = False) -> Command:
        return Command.of([*self.prefix, "systemctl", *args], what or f"systemctl {' '.join(args)}",
                          changes_host=changes_host)

    async def _ok(self, command: Command) -> str:
        return (await self.transport.run(command)).check(command.what).out

    async def show(self, *properties: str) -> dict[str, str]:
        args = [arg for p in properties for arg in ("-p", p)]
        out = await self._ok(self.systemctl("show", *args, self.unit, what=f"read {self.unit}'s state"))
        return dict(line.partition("=")[::2] for line in out.splitlines() if "=" in line)

    async def main_pid(self) -> int | None:
        pid = (await self.show("MainPID")).get("MainPID", "0").strip()
        return int(pid) if pid.isdigit() and int(pid) > 0 else None

    async def is_active(self) -> str:
        result = await self.transport.run(self.systemctl("is-active", self.unit))
        return result.out.strip() or "unknown"

    async def read(self) -> UnitFile:
        """The unit file systemd loaded the unit from, and `systemctl cat` of the unit."""
        effective = await self._ok(self.systemctl("cat", "--no-pager", self.unit, what=f"systemctl cat {self.unit}"))
        path = (await self.show("FragmentPath")).get("FragmentPath", "").strip()
        if not path:
            from mtptui.errors import UserError

            raise UserError(f"systemd on {self.transport.label} has no unit file for {self.unit}")
        text = await self._ok(Command.of([*self.prefix, "cat", "--", path], f"read {path}"))
        return UnitFile(path, text, effective)

    def write_command(self, path: str, text: str, backup: str | None) -> Command:
        tmp = posixpath.join(posixpath.dirname(path), f".{posixpath.basename(path)}.mtptui-tmp")
        what = f"back up {path} to {backup} and write the new unit" if backup else f"write {path}"
        return Command.of([*self.prefix, *script(WRITE_UNIT, tmp, path, backup or "")], what,
                          input=text.encode("utf-8"), changes_host=True)

    def daemon_reload_command(self) -> Command:
        return self.systemctl("daemon-reload", changes_host=True)

    def restart_command(self) -> Command:
        return self.systemctl("restart", self.unit, changes_host=True)

    def enable_command(self) -> Command:
        return self.systemctl("enable", self.unit, changes_host=True)

    def journal_prefix(self) -> tuple[str, ...]:
        return self.prefix


def backup_path(path: str, stamp: str) -> str:
    """A timestamped copy next to the unit; the .bak suffix keeps systemd from loading it."""
    return f"{path}.{stamp}.bak"
