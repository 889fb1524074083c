"""The systemd manager: read the unit, write a new one atomically with a backup, reload, restart, enable.

Every systemctl call (and the unit write, and journalctl) carries the host's ``command_prefix`` (e.g. sudo).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Collection

from mtptui.config.models import SystemdServer
from mtptui.remote.errors import RemoteError
from mtptui.remote.procinfo import ProcessInfo, read_process
from mtptui.remote.process import find_by_command_line
from mtptui.remote.steps import ServiceStep
from mtptui.remote.shell import Command, script
from mtptui.remote.transport import Transport
from mtptui.remote.unitfile import UnitFile

if TYPE_CHECKING:
    from mtptui.remote.steps import PreviousRun

# argv: TMP PATH BACKUP. New unit text on stdin. The backup is copied to a temporary name and hard-linked into
# place, which never replaces an existing file: it is complete or absent, and never overwrites an older one. The
# new unit is written next to the unit with its mode and renamed over it: a reader sees the old file or the new
# one, never half. A failure at any point leaves the unit as it was and removes what this script made.
WRITE_UNIT = r"""set -e
tmp=$1; path=$2; backup=$3; made=
trap 'rm -f -- "$tmp" "$tmp.bak"; [ -z "$made" ] || rm -f -- "$made"' EXIT
if [ -n "$backup" ]; then cp -p -- "$path" "$tmp.bak"; ln -- "$tmp.bak" "$backup"; made=$backup; fi
cat > "$tmp"
chmod --reference="$path" -- "$tmp" 2>/dev/null || chmod 644 -- "$tmp"
mv -f -- "$tmp" "$path"
made=""".strip()

#: ``systemctl is-active`` answers that say whether the unit's server runs; anything else says nothing.
ALIVE_STATES = frozenset({"active", "activating", "reloading", "refreshing"})
DEAD_STATES = frozenset({"inactive", "failed", "deactivating"})


class SystemdManager:
    """systemctl for one unit."""

    kind = "systemd"

    def __init__(self, transport: Transport, config: SystemdServer, port: int | None = None) -> None:
        self.transport, self.config = transport, config
        self.prefix = tuple(config.command_prefix)
        self.unit = config.unit
        self.port = port  # the API's port: finds the server by its command line when the unit has no main pid

    async def state(self) -> str:
        return await self.is_active()

    async def server_process(self) -> ProcessInfo | None:
        """The unit's main process, else the SGLang server on ``port`` (a unit that forks, say)."""
        pid = await self.main_pid()
        info = await read_process(self.transport, pid, self.prefix) if pid else None
        return info or await find_by_command_line(self.transport, self.port, self.prefix)

    async def describe(self) -> tuple[str, str]:
        pid = await self.main_pid()
        return f"{self.unit}" + (f" pid {pid}" if pid else ""), await self.is_active()

    inherits_login_environment = False  # a unit's environment is its own, not the login shell's

    async def current_run(self, unit_path: str | None) -> tuple[str | None, int | None]:
        if not unit_path:
            return None, await self.main_pid()
        read = await self.transport.run(Command.of([*self.prefix, "cat", "--", unit_path], f"read {unit_path}"))
        return read.check(f"reading {unit_path}").out, await self.main_pid()

    async def started_pid(self, launch_output: str) -> int | None:
        return await self.main_pid()

    async def still_running(self, pid: int | None) -> bool:
        return await self.running()

    def service_label(self, pid: int | None) -> str:
        return f"{self.unit} (pid {pid})" if pid else self.unit

    def rollback_summary(self, previous: PreviousRun) -> str:
        again = "restart it" if previous.running else "leave it stopped"
        return (f"on crash or timeout: write the previous unit back to {previous.unit_path}, daemon-reload, {again} "
                f"(a failure undoes only the steps that ran: if the unit could not be written, nothing changes)")

    async def rollback_steps(self, previous: PreviousRun, new_pid: int | None,
                             changed: Collection[str]) -> list[ServiceStep]:
        """A written unit is written back and reloaded; a restarted unit is restarted again (or stopped when
        nothing ran before). A server outside the unit that was stopped first is not brought back."""
        steps = []
        if "write_unit" in changed:
            assert previous.unit_path is not None and previous.unit_text is not None  # a systemd plan read both
            steps += [ServiceStep("write_unit", self.write_command(previous.unit_path, previous.unit_text, None)),
                      ServiceStep("reload", self.daemon_reload_command())]
        if "starting" in changed and previous.running:
            steps.append(ServiceStep("starting", self.restart_command(), starts=True))
        elif "starting" in changed:
            steps.append(ServiceStep("stopping", self.systemctl("stop", self.unit, changes_host=True)))
        return steps

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

    async def running(self) -> bool:
        """Whether the unit's server runs, from an answer that says so; a RemoteError when there is none."""
        state = await self.is_active()
        if state in ALIVE_STATES or state in DEAD_STATES:
            return state in ALIVE_STATES
        raise RemoteError(f"cannot tell whether {self.unit} runs on {self.transport.label} (systemd said {state!r})")


def backup_path(path: str, stamp: str) -> str:
    """A timestamped copy next to the unit; the .bak suffix keeps systemd from loading it."""
    return f"{path}.{stamp}.bak"


def lock_path(unit_path: str) -> str:
    """The restart lock beside the unit: a dot file, which systemd never loads."""
    return posixpath.join(posixpath.dirname(unit_path), f".{posixpath.basename(unit_path)}.mtptui-lock")
