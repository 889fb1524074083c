"""sudo: when server.command_prefix holds sudo, what the systemd manager runs through it must run without a
password: systemctl for the unit and, with a journal log, journalctl for it; each probed with the very command
mtptui runs (a password is never sent). sudo need not run ``sh``: without it the unit's files and mtptui's lock
are written with the login user's own rights, so one of the unit's directories must be theirs (mtptui.remote.sudo).
"""

from __future__ import annotations

import posixpath
import shlex
from typing import Awaitable

from mtptui.config.models import ProcessServer
from mtptui.ops.checks import FAIL, OK, Context, Result, last_line, not_found
from mtptui.remote.service_work import UnitView
from mtptui.remote.shell import Command, script
from mtptui.remote.sudo import allows_command, rule_for, sudo_index

NAME = "sudo"
WHICH = 'for c; do command -v "$c" || echo "$c"; done'
WRITABLE = 'for d; do [ -w "$d" ] && echo "$d"; done; exit 0'


def needed(ctx: Context) -> list[str]:
    return ["systemctl"] + ["journalctl"] * (ctx.host.log.kind == "journal")


def probes(unit: str) -> dict[str, list[str]]:
    """What mtptui runs through sudo, in a form that changes nothing."""
    return {"systemctl": ["systemctl", "show", "-p", "LoadState", unit],
            "journalctl": ["journalctl", "-u", unit, "-n", "0", "--no-pager"]}


async def check_sudo(ctx: Context) -> Result:
    return await ctx.session.manager.pick(_SudoCheck(ctx))


class _SudoCheck:
    """sudo for what the host's manager runs through it: a unit's systemctl and journalctl, or nothing."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def unit(self, unit: UnitView) -> Awaitable[Result]:
        return check_unit_sudo(self.ctx, unit)

    async def process(self, config: ProcessServer) -> Result:
        return Result(NAME, OK, "not needed: the process manager runs nothing through sudo")


async def check_unit_sudo(ctx: Context, server: UnitView) -> Result:
    index = sudo_index(server.command_prefix)
    if index is None:
        return Result(NAME, OK, "not needed: server.command_prefix has no sudo")
    rest = server.command_prefix[index + 1:]
    prefix = [*server.command_prefix[:index + 1], *([] if "-n" in rest else ["-n"]), *rest]
    refused, missing = await _probe(ctx, prefix, server.unit)
    ctx.sudo_refused = set(refused)
    if missing:
        also = " (you log in as root: it can go)" if ctx.user == "root" else ""
        return Result(NAME, FAIL, f"{prefix[index]} is not installed on the host ({refused['systemctl']})",
                      f"install sudo on the host, or drop it from server.command_prefix{also}")
    if refused:
        return Result(NAME, FAIL, _refusal(prefix, refused), await _fix(ctx, server.unit, _runas(prefix)))
    return await _files(ctx, prefix, server)


async def _probe(ctx: Context, prefix: list[str], unit: str) -> tuple[dict[str, str], bool]:
    """The programs sudo -n refuses (with why), and whether sudo itself is missing."""
    refused: dict[str, str] = {}
    for name in needed(ctx):
        result = await ctx.run(Command.of([*prefix, *probes(unit)[name]], f"sudo -n {name}"))
        if not_found(result):  # the shell found no sudo: every program is refused alike
            return {other: last_line(result) for other in needed(ctx)}, True
        if not result.ok:
            refused[name] = last_line(result)
    return refused, False


async def _files(ctx: Context, prefix: list[str], server: UnitView) -> Result:
    """sudo runs what it must; the unit's files are written through it (sh), or as the login user."""
    runs = f"{shlex.join(prefix)} runs {', '.join(needed(ctx))} for {server.unit} without a password"
    question = allows_command(prefix, "sh")
    if question is None or (await ctx.run(question)).ok:
        return Result(NAME, OK, f"{runs}, and sh (the unit's files are written through it)")
    ctx.sudo_refused.add("sh")
    dirs = await _unit_dirs(ctx, prefix, server.unit)
    found = await ctx.run(Command.of(script(WRITABLE, *dirs), "find the unit's directories the login user can write"))
    mine = found.out.split()
    user = ctx.user or "the login user"
    if mine:
        return Result(NAME, OK, f"{runs}; its files are written as {user}, who may write {mine[0]}")
    where = ", ".join(dirs) or "its directories"
    return Result(NAME, FAIL, f"{runs}, but not sh, and {user} can write none of {where}: a restart could not "
                              f"write the unit",
                  f"let {user} write the drop-in directory that holds ExecStart= ({server.unit}.d, e.g. "
                  f"chown {user} /etc/systemd/system/{server.unit}.d), or allow sh in the sudoers rule")


async def _unit_dirs(ctx: Context, prefix: list[str], unit: str) -> list[str]:
    show = Command.of([*prefix, "systemctl", "show", "-p", "FragmentPath", "-p", "DropInPaths", unit],
                      f"read where {unit}'s files are")
    props = dict(line.partition("=")[::2] for line in (await ctx.run(show)).out.splitlines())
    files = [props.get("FragmentPath", "").strip(), *props.get("DropInPaths", "").split()]
    return sorted({posixpath.dirname(path) for path in files if path})


def _refusal(prefix: list[str], refused: dict[str, str]) -> str:
    reasons = sorted(set(refused.values()))
    return f"{shlex.join(prefix)} refuses {', '.join(refused)} ({'; '.join(reasons)})"


def _runas(prefix: list[str]) -> str:
    """The user sudo runs as (``-u USER``), root by default."""
    for word, after in zip(prefix, prefix[1:]):
        if word == "-u":
            return after
    return next((word[2:] for word in prefix if word.startswith("-u") and len(word) > 2), "root")


async def _fix(ctx: Context, unit: str, runas: str) -> str:
    user = ctx.user or "USER"
    result = await ctx.run(Command.of(script(WHICH, "systemctl", "journalctl"), "find the programs sudo must allow"))
    paths = result.out.split() if result.ok and len(result.out.split()) == 2 else ["systemctl", "journalctl"]
    rule = rule_for(user, unit, *paths).replace("ALL=(root)", f"ALL=({runas})")
    return (f"allow {user} what mtptui runs for {unit}, and only that: add \"{rule}\" with visudo -f "
            f"/etc/sudoers.d/mtptui")
