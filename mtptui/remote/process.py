"""The process manager: a server started by hand (the mission's nohup case), found by pid file or command line.

Stopping sends TERM to the server's whole process group (its TP workers too), then KILL after a timeout.
Relaunching runs ``setsid nohup ... >> LOG 2>&1 < /dev/null &`` so the server outlives the SSH session; the
launched process writes its own pid to the pid file before it execs the server. The log is appended to, so
byte offsets of a follower stay valid across restarts.
"""

from __future__ import annotations

import copy
import posixpath
from typing import TYPE_CHECKING, Collection

from mtptui.config.models import ProcessServer
from mtptui.errors import UserError
from mtptui.remote.procinfo import ProcessInfo, find_servers, read_process
from mtptui.remote.service_state import ServiceState
from mtptui.remote.shell import (APPEND, BACKGROUND, ERR_TO_OUT, FROM, LAST_BACKGROUND_PID, OR, THEN, Command,
                                 script)
from mtptui.remote.steps import PreviousRun, ServicePlan, ServiceStep, StopPolicy
from mtptui.remote.transport import Transport
from mtptui.remote.unitfile import ConfiguredLaunch, UnitFile

if TYPE_CHECKING:
    from mtptui.remote.service_work import ByManager, T
    from mtptui.remote.steps import LaunchRequest
    from mtptui.engines.sglang.flags.flagset import FlagSet

STOP_TIMEOUT_S = 30.0  # TERM, then KILL this much later (a hand-started server, or one outside its unit)

# argv: PGID TICKS (tenths of a second before KILL). Exit 0 once no live process is left in the group.
# `env -- kill` is the system kill: dash's builtin takes no negative pid (process group). The signal is given as
# `-TERM`, never `-s TERM`: procps-ng 4.0's kill then reads a small group id (`-- -46`, as in a container's own
# PID namespace) as a signal and prints its usage instead of signalling the group.
# Its text is part of the command a restart plan shows, word for word: E501 is waived for it, not wrapped.
STOP_GROUP = r"""pg=$1; ticks=$2
members() {
  for s in /proc/[0-9]*/stat; do
    read -r l < "$s" 2>/dev/null || continue
    set -- ${l##*)}
    [ "$3" = "$pg" ] && [ "$1" != Z ] && [ "$1" != X ] && return 0
  done
  return 1
}
env -- kill -TERM -- "-$pg" 2>/dev/null
i=0
while members; do
  i=$((i+1))
  if [ "$i" -eq "$ticks" ]; then echo "sent KILL to process group $pg" >&2; env -- kill -KILL -- "-$pg" 2>/dev/null; fi
  if [ "$i" -gt $((ticks+50)) ]; then echo "process group $pg is still running after KILL" >&2; exit 1; fi
  sleep 0.1
done
""".strip()  # noqa: E501

# argv: PIDFILE WORKDIR COMMAND... ("" for no pid file / no workdir). Runs inside setsid nohup. The pid file is
# written to a file mktemp made beside it and renamed over it (mv -T): a link planted at its path is replaced,
# never followed. Where its directory is not writable, only an existing regular file is written in place.
LAUNCH = r"""if [ -n "$1" ]; then
  if t=$(mktemp -- "$1.XXXXXXXX" 2>/dev/null); then
    { echo $$ > "$t" && chmod 644 -- "$t" && mv -f -T -- "$t" "$1"; } || { rm -f -- "$t"; exit 1; }
  elif [ -f "$1" ] && [ ! -h "$1" ]; then echo $$ > "$1" || exit 1
  else echo "cannot write the pid file $1" >&2; exit 1
  fi
fi
if [ -n "$2" ]; then cd -- "$2" || exit 1; fi
shift 2
exec "$@"
""".strip()

# argv: PIDFILE. Prints the pid it holds when that process is alive (not a zombie); only a regular file is read
# (a FIFO planted there would never answer).
READ_PIDFILE = r"""[ -f "$1" ] || exit 0
read -r p < "$1" 2>/dev/null || exit 0
case "$p" in ''|*[!0-9]*) exit 0;; esac
read -r l < "/proc/$p/stat" 2>/dev/null || exit 0
set -- ${l##*)}
[ "$1" = Z ] || echo "$p"
""".strip()


def stop_group_command(pid: int, pgid: int, timeout_s: float, prefix: tuple[str, ...] = ()) -> Command:
    """TERM to the process group, KILL after ``timeout_s``; done when no live member is left."""
    if pgid <= 1:
        raise UserError(f"refusing to stop process group {pgid} of pid {pid}")
    ticks = max(1, round(timeout_s * 10))
    return Command.of([*prefix, *script(STOP_GROUP, pgid, ticks)], f"stop the server (pid {pid}, process group {pgid})",
                      changes_host=True)


def server_roots(servers: list[tuple[int, int]]) -> list[int]:
    """The SGLang processes whose parent is not one too (a forked worker keeps its parent's command line)."""
    pids = {pid for pid, _ in servers}
    return sorted(pid for pid, ppid in servers if ppid not in pids)


async def find_by_command_line(transport: Transport, port: int | None,
                               prefix: tuple[str, ...] = ()) -> ProcessInfo | None:
    """The one SGLang server serving ``port`` (any port when None); a UserError when several do."""
    found = []
    for pid in server_roots(await find_servers(transport)):
        info = await read_process(transport, pid, prefix)
        if info is not None and (port is None or info.port == port):
            found.append(info)
    if len(found) > 1:
        pids = ", ".join(str(info.pid) for info in found)
        where = f" on port {port}" if port else ""
        raise UserError(f"{len(found)} servers run{where} on {transport.label} (pids {pids}); set "
                        f"server.pid_file to say which one mtptui manages")
    return found[0] if found else None


class ProcessManager:
    """Find, stop and launch a hand-started SGLang server."""

    kind = "process"
    prefix: tuple[str, ...] = ()  # a hand-started server is the login user's
    inherits_login_environment = True  # started from a login shell, it sees that shell's PYTHONPATH

    def __init__(self, transport: Transport, config: ProcessServer, stop_timeout_s: float = STOP_TIMEOUT_S,
                 port: int | None = None) -> None:
        self.transport, self.config = transport, config
        self.stop_timeout_s = stop_timeout_s
        self.port = port

    def pick(self, work: ByManager[T]) -> T:
        return work.process(self.config)

    async def state(self) -> ServiceState:
        info = await self.find()
        if info is not None and info.alive:
            return ServiceState("running", "running", info.pid)
        return ServiceState("stopped", "not running")

    async def server_process(self) -> ProcessInfo | None:
        return await self.find()

    async def describe(self) -> tuple[str, str]:
        state = await self.state()
        return f"process pid {state.pid}" if state.pid else "process", state.words

    async def configured(self) -> ConfiguredLaunch | None:
        """``server.launch_command``, else the unit file this server replaced (``server.unit_file``), else None."""
        if self.config.launch_command:
            return ConfiguredLaunch("command:server.launch_command", command=self.config.launch_command)
        reference = await self.reference_unit()
        return ConfiguredLaunch(f"unit:{reference.path}", unit=reference) if reference else None

    async def plan_launch(self, request: LaunchRequest) -> ServicePlan:
        """Stop the running server's process group, launch the target with setsid nohup."""
        if request.drop_env:
            raise UserError(f"--drop-env applies to a systemd unit's Environment=; {self.transport.label} runs a "
                            f"hand-started process")
        target, info = self._target(request), request.running
        workdir = self.config.workdir or (info.cwd if info else None)
        steps = [ServiceStep("stopping", self.stop_command(info))] if info else []
        steps.append(ServiceStep("starting", self.launch_command(request.launches.words(target), target.env,
                                                                 workdir), starts=True))
        previous = PreviousRun(info is not None, process=info, argv=list(info.argv) if info else [],
                               env=dict(request.running_env), workdir=info.cwd if info else None,
                               pid=info.pid if info else None)
        return ServicePlan(target, steps, previous, self.rollback_summary(previous),
                           StopPolicy(self.stop_timeout_s,
                                      f"TERM to its process group, KILL {self.stop_timeout_s:g} s later", "group"),
                           lock=self.lock_path())

    def _target(self, request: LaunchRequest) -> FlagSet:
        """The profile's launch, with the running server's interpreter unless the profile names one."""
        model = request.launches
        entry = model.entry(request.running.argv) if request.running and request.keep_interpreter else None
        target: FlagSet = model.with_entry(request.target, entry) if entry else copy.copy(request.target)
        return target

    async def current_run(self, unit_path: str | None) -> tuple[str | None, int | None]:
        info = await self.find()
        return None, info.pid if info else None

    async def started_pid(self, launch_output: str) -> int | None:
        lines = launch_output.strip().splitlines()
        if lines and lines[-1].isdigit():
            return int(lines[-1])
        found = await self.find()  # the launch's output was lost with the connection: the pid file says
        return found.pid if found else None

    async def exited(self, pid: int | None) -> str | None:
        if pid is not None and await read_process(self.transport, pid) is not None:
            return None
        return "the server exited before it was ready"

    def service_label(self, pid: int | None) -> str:
        return f"process pid {pid}" if pid else "process"

    def rollback_summary(self, previous: PreviousRun) -> str:
        if previous.running:
            return "on crash or timeout: stop the new server and relaunch the previous command line"
        return "on crash or timeout: stop the new server (nothing ran before)"

    async def rollback_steps(self, previous: PreviousRun, new_pid: int | None,
                             changed: Collection[str]) -> list[ServiceStep]:
        """The new server is stopped, and the previous command line relaunched if it was stopped."""
        steps = []
        if "starting" in changed and new_pid:  # launched with setsid: its process group is its pid, workers included
            info = await read_process(self.transport, new_pid)
            steps.append(ServiceStep("stopping", self.stop_group_command(new_pid, info.pgid if info else new_pid)))
        if "stopping" in changed and previous.running and not await self._still_runs(previous):
            steps.append(ServiceStep("starting", self.launch_command(previous.argv, previous.env, previous.workdir),
                                     starts=True))
        return steps

    async def _still_runs(self, previous: PreviousRun) -> bool:
        """A stop that failed may have left the previous server running: then it is not launched a second time."""
        return previous.process is not None and await read_process(self.transport, previous.process.pid) is not None

    async def find(self) -> ProcessInfo | None:
        """The running server: the pid file's process if alive, else the SGLang server on ``port`` (by command line)."""
        if self.config.pid_file:
            read_pid = Command.of(script(READ_PIDFILE, self.config.pid_file), "read the pid file")
            result = await self.transport.run(read_pid)
            pid = result.out.strip()
            if result.ok and pid.isdigit() and (info := await read_process(self.transport, int(pid))):
                return info
        return await find_by_command_line(self.transport, self.port)

    def stop_command(self, info: ProcessInfo) -> Command:
        return self.stop_group_command(info.pid, info.pgid)

    def stop_group_command(self, pid: int, pgid: int) -> Command:
        return stop_group_command(pid, pgid, self.stop_timeout_s)

    def launch_command(self, argv: list[str], env: dict[str, str], workdir: str | None = None) -> Command:
        """``setsid nohup`` the server with ``env`` in ``workdir``, appending to the log; prints the new pid."""
        log = self.config.log_file
        # `--` ends env's options: a name such as `--split-string=...` (from a previous process's environment,
        # or a caller that skipped the loader's check) is an assignment, and the command may start with `-`.
        env_words = ["env", "--", *(f"{k}={v}" for k, v in sorted(env.items()))]
        inner = script(LAUNCH, self.config.pid_file or "", workdir or self.config.workdir or "")
        words = ["mkdir", "-p", "--", posixpath.dirname(log), OR, "exit", "1", THEN] if posixpath.dirname(log) else []
        words += ["setsid", "nohup", *inner, *env_words, *argv, APPEND, log, ERR_TO_OUT, FROM, "/dev/null",
                  BACKGROUND, "echo", LAST_BACKGROUND_PID]
        return Command.of(words, "launch the server", changes_host=True)

    async def stop(self, info: ProcessInfo) -> None:
        (await self.transport.run(self.stop_command(info))).check(f"stopping pid {info.pid}")

    async def launch(self, argv: list[str], env: dict[str, str], workdir: str | None = None) -> int:
        """Start the server; its pid."""
        result = (await self.transport.run(self.launch_command(argv, env, workdir))).check("launching the server")
        pid = result.out.strip().splitlines()[-1:] or [""]
        if not pid[0].isdigit():
            raise UserError(f"launching the server on {self.transport.label} printed no pid")
        return int(pid[0])

    async def reference_unit(self) -> UnitFile | None:
        """The unit file that ran this server before it was started by hand (``unit_file``), if configured."""
        path = self.config.unit_file
        if not path:
            return None
        text = (await self.transport.run(Command.of(["cat", "--", path], f"read {path}"))).check(f"reading {path}").out
        return UnitFile(path, text, text, name=posixpath.basename(path))

    async def alive(self, pid: int) -> bool:
        return await read_process(self.transport, pid) is not None

    async def restart_lock(self) -> str | None:
        return self.lock_path()

    def lock_path(self) -> str:
        """The restart lock: a dot file beside the pid file (else the log file)."""
        beside = self.config.pid_file or self.config.log_file
        return posixpath.join(posixpath.dirname(beside), f".{posixpath.basename(beside)}.mtptui-lock")
