"""The systemd manager: read the unit (its drop-ins and EnvironmentFile=s too), write the file holding ExecStart=
atomically with a backup, reload, reset the failed state, restart, enable.

Every systemctl call (and journalctl) carries the host's ``command_prefix`` (e.g. ``sudo -n``). Reading and
writing the unit's files, mtptui's lock beside them and the server's /proc go through ``prefix``: the command
prefix too, unless it is sudo and sudo does not run ``sh`` for the login user (a sudoers rule for systemctl and
journalctl only): then they run with the login user's own rights (``resolve_prefix``). A command sudo refuses
fails with one sentence naming it and the rule it needs (mtptui.remote.sudo). The restart's steps are planned in
mtptui.remote.systemd_plan; the unit's state is read with `systemctl show` (mtptui.remote.systemd_state), and a
start is judged by it: a server that exits, or that systemd restarts by itself (``Restart=``), is not the one
started.
"""

from __future__ import annotations

import base64
import posixpath
from dataclasses import replace
from typing import TYPE_CHECKING, Collection

from mtptui.config.models import SystemdServer
from mtptui.errors import UserError
from mtptui.remote.errors import CommandFailed, RemoteError
from mtptui.remote.procinfo import ProcessInfo, read_process
from mtptui.remote.process import find_by_command_line
from mtptui.remote.service_state import ServiceState
from mtptui.remote.steps import ServiceStep
from mtptui.remote.shell import AND, Command, script
from mtptui.remote.sudo import allows_command, refused, rule_for
from mtptui.remote.systemd_state import STATE_PROPERTIES, killed_by_signal, service_state, why_exited
from mtptui.remote.transport import Transport
from mtptui.remote.unitfile import ConfiguredLaunch, UnitFile

if TYPE_CHECKING:
    from mtptui.remote.service_work import ByManager, T
    from mtptui.remote.steps import LaunchRequest, PreviousRun, ServicePlan

# argv: PATH BACKUP. New unit text on stdin. Everything it writes is a regular file it has just created: the
# temporary files come from mktemp in the unit's directory (a name planted there beforehand is never used), the
# backup is copied without following links (-P, and --remove-destination creates its copy afresh) and hard-linked
# into place with -T, which never replaces an existing file nor enters a directory: it is complete or absent, and
# never overwrites an older one. The new unit is renamed over the unit with mv -T (a link at the unit's path is
# replaced, not followed): a reader sees the old file or the new one, never half. A failure at any point leaves
# the unit as it was and removes what this script made.
WRITE_UNIT = r"""set -e
path=$1; backup=$2; tmp=; bak=; made=
trap 'for f in "$tmp" "$bak" "$made"; do [ -z "$f" ] || rm -f -- "$f"; done' EXIT
dir=$(dirname -- "$path"); name=$(basename -- "$path")
tmp=$(mktemp -- "$dir/.$name.mtptui-XXXXXXXX")
if [ -n "$backup" ]; then
  bak=$(mktemp -- "$dir/.$name.mtptui-bak-XXXXXXXX")
  cp -P -p --remove-destination -- "$path" "$bak"
  ln -P -T -- "$bak" "$backup"; made=$backup
fi
cat > "$tmp"
chmod --reference="$path" -- "$tmp" 2>/dev/null || chmod 644 -- "$tmp"
mv -f -T -- "$tmp" "$path"
tmp=; made=""".strip()

# argv: PATH... One line per file: "+" and its content in base64, or "-" when it cannot be read.
READ_FILES = r"""for p; do
  if [ -r "$p" ] && [ -f "$p" ]; then printf +; base64 -w0 < "$p" || exit 1; echo; else echo -; fi
done""".strip()


# Between `systemctl show`'s lines and `systemctl cat`'s text in one answer (show prints Key=value lines only).
CAT_FOLLOWS = "--- mtptui: systemctl cat follows ---"


class SystemdManager:
    """systemctl for one unit: the service manager of a host whose server is a systemd unit."""

    kind = "systemd"
    inherits_login_environment = False  # a unit's environment is its own, not the login shell's

    def __init__(self, transport: Transport, config: SystemdServer, port: int | None = None) -> None:
        self.transport, self.config = transport, config
        self.command_prefix = tuple(config.command_prefix)  # systemctl and journalctl
        self.prefix = self.command_prefix  # the unit's files, the lock, /proc: see resolve_prefix
        self.unit = config.unit
        self.port = port  # the API's port: finds the server by its command line when the unit has no main pid
        self._resolved = False

    async def state(self) -> ServiceState:
        return service_state(await self.show(*STATE_PROPERTIES))

    async def server_process(self) -> ProcessInfo | None:
        """The unit's main process, else the SGLang server on ``port`` (a unit that forks, say)."""
        pid, prefix = await self.main_pid(), await self.resolve_prefix()
        info = await read_process(self.transport, pid, prefix) if pid else None
        return info or await find_by_command_line(self.transport, self.port, prefix)

    async def describe(self) -> tuple[str, str]:
        state = await self.state()
        return f"{self.unit}" + (f" pid {state.pid}" if state.pid else ""), state.words

    async def configured(self) -> ConfiguredLaunch:
        unit = await self.read()
        return ConfiguredLaunch(f"unit:{unit.path}", unit=unit)

    async def current_run(self, unit_path: str | None) -> tuple[str | None, int | None]:
        if not unit_path:
            return None, await self.main_pid()
        [text] = await self.read_files([unit_path])
        if text is None:
            raise RemoteError(f"cannot read {unit_path} on {self.transport.label}")
        return text, await self.main_pid()

    async def started_pid(self, launch_output: str) -> int | None:
        return await self.main_pid()

    async def exited(self, pid: int | None) -> str | None:
        state = await self.state()
        if state.phase == "unknown":
            raise RemoteError(f"cannot tell whether {self.unit} runs on {self.transport.label} "
                              f"(systemd said {state.words!r})")
        return why_exited(state, pid)

    def service_label(self, pid: int | None) -> str:
        return f"{self.unit} (pid {pid})" if pid else self.unit

    async def plan_launch(self, request: LaunchRequest) -> ServicePlan:
        from mtptui.remote.systemd_plan import plan_unit_launch

        return await plan_unit_launch(self, request)

    def rollback_summary(self, previous: PreviousRun) -> str:
        again = "reset-failed and restart it" if previous.running else "leave it stopped"
        return (f"on crash or timeout: write the previous {previous.unit_path} back, daemon-reload, {again} "
                f"(a failure undoes only the steps that ran: if the unit could not be written, nothing changes)")

    async def rollback_steps(self, previous: PreviousRun, new_pid: int | None,
                             changed: Collection[str]) -> list[ServiceStep]:
        """A written unit is written back and reloaded; a restarted unit has its failed state (and start limit)
        reset, is stopped and started again, or only stopped when nothing ran before. A server outside the unit
        that was stopped first is not brought back.

        Stop, then start, not ``restart``: a crash-looping launch under ``Restart=`` could exit again between
        ``reset-failed`` and a ``restart``; systemd then scheduled its own restart and kept counting
        ``NRestarts``, and the previous launch's start looked like systemd restarting it by itself. A stop
        cancels a pending automatic restart, and the next start counts from zero."""
        steps = self.write_back_steps(previous) if "write_unit" in changed else []
        if "starting" in changed and previous.running:
            steps += [ServiceStep("reset_failed", self.reset_failed_command()),
                      ServiceStep("stopping", self.systemctl("stop", self.unit, changes_host=True)),
                      ServiceStep("starting", self.systemctl("start", self.unit, changes_host=True), starts=True)]
        elif "starting" in changed:
            steps.append(ServiceStep("stopping", self.systemctl("stop", self.unit, changes_host=True)))
        return steps

    def write_back_steps(self, previous: PreviousRun) -> list[ServiceStep]:
        """The unit file as it was before the restart wrote it, and systemd told to read it again."""
        assert previous.unit_path is not None and previous.unit_text is not None  # a systemd plan read both
        return [ServiceStep("write_unit", self.write_command(previous.unit_path, previous.unit_text, None)),
                ServiceStep("reload", self.daemon_reload_command())]

    async def resolve_prefix(self) -> tuple[str, ...]:
        """The prefix for the unit's files, the lock and /proc, asked of sudo once per session."""
        if not self._resolved:
            question = allows_command(self.command_prefix, "sh")
            if question is not None and not (await self.transport.run(question)).ok:
                self.prefix = ()  # sudo runs systemctl and journalctl only: the login user's own rights
            self._resolved = True
        return self.prefix

    def systemctl(self, *args: str, what: str = "", changes_host: bool = False) -> Command:
        return systemctl_command(self.config, *args, what=what, changes_host=changes_host)

    def pick(self, work: ByManager[T]) -> T:
        return work.unit(self)

    def state_command(self) -> Command:
        return self.systemctl("show", *(arg for p in (*STATE_PROPERTIES, "FragmentPath") for arg in ("-p", p)),
                              self.unit)

    def state_of(self, props: dict[str, str]) -> ServiceState:
        return service_state(props)

    def killed_by_signal(self, state: ServiceState, signal: int) -> bool:
        return killed_by_signal(state, signal)

    async def _ok(self, command: Command) -> str:
        result = await self.transport.run(command)
        why = refused(result.err) if not result.ok and self.command_prefix else None
        if why is not None:
            raise CommandFailed(self.sudo_refusal(command, why), result.exit_status, result.err)
        return result.check(command.what).out

    def sudo_refusal(self, command: Command, why: str) -> str:
        """One sentence: which command sudo refused, and the rule it needs."""
        user = self.transport.label.partition("@")[0] or "the login user"
        return (f"sudo on {self.transport.label} refuses {command.what} ({why}): {user} needs a sudoers rule for "
                f"systemctl and journalctl of {self.unit}, such as \"{rule_for(user, self.unit)}\" (mtptui check "
                f"lists what it needs)")

    async def show(self, *properties: str) -> dict[str, str]:
        args = [arg for p in properties for arg in ("-p", p)]
        out = await self._ok(self.systemctl("show", *args, self.unit, what=f"read {self.unit}'s state"))
        return dict(line.partition("=")[::2] for line in out.splitlines() if "=" in line)

    async def main_pid(self) -> int | None:
        pid = (await self.show("MainPID")).get("MainPID", "0").strip()
        return int(pid) if pid.isdigit() and int(pid) > 0 else None

    async def read_files(self, paths: list[str]) -> list[str | None]:
        """The text of each file (None where it cannot be read), in one round trip."""
        if not paths:
            return []
        prefix = await self.resolve_prefix()
        out = await self._ok(Command.of([*prefix, *script(READ_FILES, *paths)], f"read {', '.join(paths)}"))
        return [base64.b64decode(line[1:]).decode("utf-8", "surrogateescape") if line.startswith("+") else None
                for line in out.splitlines()[:len(paths)]]

    async def read(self) -> UnitFile:
        """The unit as systemd loaded it: its file, its drop-ins, `systemctl cat`, and its EnvironmentFile=s."""
        props, effective = await self._files_and_cat()
        path = props.get("FragmentPath", "").strip()
        if not path:
            raise UserError(f"systemd on {self.transport.label} has no unit file for {self.unit}")
        drop_ins = props.get("DropInPaths", "").split()
        read = await self.read_files([path, *drop_ins])
        unreadable = [name for name, text in zip([path, *drop_ins], read) if text is None]
        if unreadable:
            raise UserError(f"cannot read {unreadable[0]} of {self.unit} on {self.transport.label}")
        texts = [text or "" for text in read]
        unit = UnitFile(path, texts[0], effective, tuple(zip(drop_ins, texts[1:])), name=self.unit)
        env_paths = [p.lstrip("-") for p in unit.parsed().environment_files]
        return replace(unit, env_files=tuple(zip(env_paths, await self.read_files(env_paths))))

    async def _files_and_cat(self) -> tuple[dict[str, str], str]:
        """The unit's FragmentPath and DropInPaths, and `systemctl cat` of it, in one round trip."""
        show = self.systemctl("show", "-p", "FragmentPath", "-p", "DropInPaths", self.unit)
        cat = self.systemctl("cat", "--no-pager", self.unit)
        marker = Command.of(["printf", "%s\\n", CAT_FOLLOWS])
        out = await self._ok(Command.of([*show.words, AND, *marker.words, AND, *cat.words],
                                        f"systemctl cat {self.unit}"))
        shown, _, effective = out.partition(CAT_FOLLOWS + "\n")
        return dict(line.partition("=")[::2] for line in shown.splitlines() if "=" in line), effective

    def write_command(self, path: str, text: str, backup: str | None) -> Command:
        what = f"back up {path} to {backup} and write the new unit" if backup else f"write {path}"
        return Command.of([*self.prefix, *script(WRITE_UNIT, path, backup or "")], what,
                          input=text.encode("utf-8"), changes_host=True)

    def daemon_reload_command(self) -> Command:
        return self.systemctl("daemon-reload", changes_host=True)

    def reset_failed_command(self) -> Command:
        """Forget a failed state and the start limit (a crash loop's ``start-limit-hit`` refuses every start)."""
        return self.systemctl("reset-failed", self.unit, changes_host=True)

    def restart_command(self) -> Command:
        return self.systemctl("restart", self.unit, changes_host=True)

    def enable_command(self) -> Command:
        return self.systemctl("enable", self.unit, changes_host=True)

    def backup_for(self, path: str, stamp: str) -> str:
        return backup_path(path, stamp)

    async def restart_lock(self) -> str | None:
        """The lock beside the file that holds ExecStart= (the one a restart rewrites and locks)."""
        return self.lock_for((await self.read()).exec_holder()[0])

    def lock_for(self, path: str) -> str:
        return lock_path(path)


def systemctl_command(server: SystemdServer, *args: str, what: str = "", changes_host: bool = False) -> Command:
    """``systemctl ARGS`` for a systemd server, through its command prefix (every systemctl call is built here)."""
    return Command.of([*server.command_prefix, "systemctl", *args], what or f"systemctl {' '.join(args)}",
                      changes_host=changes_host)


def backup_path(path: str, stamp: str) -> str:
    """A timestamped copy next to the unit; the .bak suffix keeps systemd from loading it."""
    return f"{path}.{stamp}.bak"


def lock_path(unit_path: str) -> str:
    """The restart lock beside the unit: a dot file, which systemd never loads."""
    return posixpath.join(posixpath.dirname(unit_path), f".{posixpath.basename(unit_path)}.mtptui-lock")
