"""The server: the systemd unit is loaded and its ExecStart= launches the host's engine, or the hand-started
process is found (pid file, else command line) and there is something to relaunch it with. Notes the model each
one names. The launch is read by the host's engine (mtptui.ops.checks.launch)."""

from __future__ import annotations

import shlex
from typing import Awaitable

from mtptui.config.models import ProcessServer
from mtptui.errors import UserError
from mtptui.ops.checks import FAIL, OK, SKIP, WARN, Context, Result, last_line
from mtptui.ops.checks.launch import Launch
from mtptui.ops.connect import api_port
from mtptui.remote.errors import RemoteError
from mtptui.remote.procinfo import ProcessInfo, read_process
from mtptui.remote.process import find_by_command_line
from mtptui.remote.service_work import UnitView
from mtptui.remote.service_state import ServiceState
from mtptui.remote.shell import Command
from mtptui.secrets import mask_argv
from mtptui.engines.sglang.surface_shutdown import shutdown_of

NAME = "server"


async def check_server(ctx: Context) -> Result:
    from mtptui.ops.tune_marker import interrupted_sentence, read_marker

    marker = await read_marker(ctx.session)
    if marker is not None:  # a tune that did not finish may have left an experimental arm running
        sentence = interrupted_sentence(marker, ctx.host.name)
        detail, _, fix = sentence.partition("; restore the original with ")
        return Result(NAME, FAIL, detail, f"restore the original with {fix}")
    return await ctx.session.manager.pick(_ServerCheck(ctx))


class _ServerCheck:
    """The server check of the host's manager: its unit, or its hand-started process."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def unit(self, unit: UnitView) -> Awaitable[Result]:
        return check_unit(self.ctx, unit)

    def process(self, config: ProcessServer) -> Awaitable[Result]:
        return check_process(self.ctx, config)


def verdict(detail: str, problems: list[tuple[str, str]]) -> Result:
    """ok, or warn with each problem's note in the detail and the fixes joined."""
    if not problems:
        return Result(NAME, OK, detail)
    notes, fixes = zip(*problems)
    return Result(NAME, WARN, "; ".join([detail, *filter(None, notes)]), "; ".join(fixes))


def flag_problem(ctx: Context, launch: Launch, where: str) -> list[tuple[str, str]]:
    from mtptui.engines.registry import dashboard

    if launch.problem is None:
        return []
    fix = f"fix the flag in {where}"
    if dashboard(ctx.host.engine).host_version(ctx.host) is not None:  # the host file names the release
        fix += f", or sglang_version in {ctx.file_name} if the host runs another {ctx.engine_label}"
    return [(f"{ctx.engine_label} {ctx.engine_version} refuses its flags ({launch.problem})", fix)]


async def check_unit(ctx: Context, server: UnitView) -> Result:
    if "systemctl" in ctx.sudo_refused:
        return Result(NAME, SKIP, "skipped: needs sudo for systemctl")
    show = server.state_command()
    out = (await ctx.run(show)).check(show.what).out
    props = {key: value.strip() for key, _, value in (line.partition("=") for line in out.splitlines())}
    ctx.unit_found = props.get("LoadState") == "loaded"
    if not ctx.unit_found:
        return Result(NAME, FAIL, f"systemd has no unit {server.unit} (LoadState={props.get('LoadState') or '?'})",
                      f"set server.unit in {ctx.file_name} to the unit that runs {ctx.engine_label} (systemctl "
                      f"list-units --all '{ctx.host.engine}*' on the host lists candidates)")
    launch, argv = await _unit_launch(ctx, server)
    if not launch.engine:
        shown = shlex.join(mask_argv(argv))[:120]
        return Result(NAME, FAIL, f"{server.unit} does not launch {ctx.engine_label}: ExecStart={shown}",
                      f"point server.unit at the unit that runs the {ctx.engine_label} server, or fix its "
                      f"ExecStart= (or engine in {ctx.file_name} if the host runs another engine)")
    ctx.add_model(launch.model, f"unit {server.unit}")
    detail = (f"{server.unit} ({props.get('FragmentPath') or 'no unit file'}) starts {ctx.engine_label} with "
              f"{launch.model}")
    state = await _unit_state(ctx, server, server.state_of(props))
    return verdict(f"{detail}; {state[0]}", flag_problem(ctx, launch, f"ExecStart= of {server.unit}") + state[1])


async def _unit_launch(ctx: Context, server: UnitView) -> tuple[Launch, list[str]]:
    """What the unit's ExecStart= (with drop-ins, as `systemctl cat` shows it) launches, and its words."""
    from mtptui.engines.sglang.unit import read_unit

    cat = server.systemctl("cat", "--no-pager", server.unit)
    unit = read_unit((await ctx.run(cat)).check(cat.what).out, name=server.unit)
    return ctx.read_launch(unit.exec_argv), unit.exec_argv


async def _unit_state(ctx: Context, server: UnitView, state: ServiceState) -> tuple[str, list[tuple[str, str]]]:
    """("active, pid N", []) for a running unit, else its state and how to start it."""
    prefix = () if "sh" in ctx.sudo_refused else tuple(server.command_prefix)
    info = await read_process(ctx.session.transport, state.pid, prefix) if state.pid else None
    ctx.server_running = state.phase == "running" and info is not None
    if state.phase == "running" and info is not None:
        ctx.running = info
        ctx.add_model(ctx.read_launch(info.argv).model, "running server")
        return f"{state.words}, pid {info.pid}", []
    start = ctx.start_command = server.systemctl("start", server.unit).line
    if state.phase == "failed" and server.killed_by_signal(state, 9) and ctx.launches.stop_facts and \
            shutdown_of(ctx.host.sglang_version).drained_exit == "sigkill":
        return f"{state.words}: no server runs", [("", f"SGLang {ctx.host.sglang_version} ends every stop so (SIGKILL "
                                                       f"to itself after its drain), a crash too: read which "
                                                       f"(journalctl -u {server.unit} -n 50), then start it: {start}")]
    if state.phase == "failed":
        return f"{state.words}: no server runs", [("", f"read why it failed (journalctl -u {server.unit} -n 50), "
                                                       f"then start it: {start}")]
    return f"{state.words}: no server runs", [("", f"start it: {start}")]


async def check_process(ctx: Context, server: ProcessServer) -> Result:
    info: ProcessInfo | None = None
    notes: list[str] = []
    problem: Result | None = None
    if server.pid_file:
        info, notes, problem = await _from_pid_file(ctx, server.pid_file)
    if problem:
        return problem
    if info is None:
        try:
            info = await find_by_command_line(ctx.session.transport, api_port(ctx.host))
        except RemoteError:
            raise
        except UserError as exc:  # several servers: mtptui cannot tell which one it manages
            return Result(NAME, FAIL, str(exc).partition("; ")[0],
                          f"set server.pid_file in {ctx.file_name} to the pid file of the server mtptui manages")
        notes.append("found by its command line" if info else "none found by command line")
    return _process_result(ctx, server, info, notes)


async def _from_pid_file(ctx: Context, path: str) -> tuple[ProcessInfo | None, list[str], Result | None]:
    """(the live server the pid file names, notes on the way, a failure)."""
    result = await ctx.run(Command.of(["cat", "--", path], f"read {path}"))
    if not result.ok:
        if "No such file" in result.err:
            return None, [f"no pid file {path}"], None
        return None, [], Result(NAME, FAIL, f"cannot read the pid file {path}: {last_line(result)}",
                                f"make {path} readable by {ctx.user or 'the login user'}, or set server.pid_file to "
                                f"the file the server's pid is written to")
    pid = result.out.strip()
    if not pid.isdigit():
        return None, [f"pid file {path} holds no pid"], None
    info = await read_process(ctx.session.transport, int(pid))
    if info is None:
        return None, [f"pid file {path} names pid {pid}, which is not running"], None
    if not ctx.read_launch(info.argv).engine:
        program = shlex.join(info.argv[:3])[:80] or "?"
        return None, [], Result(NAME, FAIL, f"pid file {path} names pid {pid}, which is not {ctx.engine_label} but "
                                            f"{program}",
                                f"remove the stale pid file {path}: a restart would stop pid {pid}")
    return info, [f"from {path}"], None


def _relaunch(ctx: Context, server: ProcessServer) -> tuple[str, list[tuple[str, str]]]:
    if ctx.host.known_good:
        return f"relaunch: profile {ctx.host.known_good}", []
    if server.launch_command:
        return "relaunch: server.launch_command", []
    return "nothing to relaunch it with", [("", f"set known_good (a profile) or server.launch_command in "
                                                f"{ctx.file_name}")]


def _process_result(ctx: Context, server: ProcessServer, info: ProcessInfo | None, notes: list[str]) -> Result:
    relaunch, problems = _relaunch(ctx, server)
    ctx.server_running = info is not None
    if info is None:
        if ctx.host.known_good:
            ctx.start_command = shlex.join(["mtptui", "restart", ctx.host.name, "--profile", ctx.host.known_good])
        start = ctx.start_command or "run server.launch_command on the host"
        return verdict(f"no server runs ({'; '.join(notes)}); {relaunch}", [("", f"start it: {start}"), *problems])
    ctx.running = info
    launch = ctx.read_launch(info.argv)
    ctx.add_model(launch.model, "running server")
    detail = (f"pid {info.pid} ({', '.join(notes)}) runs {ctx.engine_label} with {launch.model} on port "
              f"{info.port}; {relaunch}")
    return verdict(detail, flag_problem(ctx, launch, "the server's command line") + problems)
