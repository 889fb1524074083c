"""sudo: when server.command_prefix holds sudo, each program the systemd manager runs through it must run without a
password. Tested with ``sudo -n`` and a harmless invocation of each program: a password is never sent."""

from __future__ import annotations

import os
import shlex

from mtptui.config.models import SystemdServer
from mtptui.ops.checks import FAIL, OK, Context, Result, last_line, not_found
from mtptui.remote.shell import Command, script

NAME = "sudo"
# What the manager runs through the prefix: systemctl (state, restart), journalctl (the log), cat (read the unit
# file) and sh (write the unit atomically, read /proc of the server); each probed with a command that does nothing.
PROBES = {"systemctl": ["systemctl", "--version"], "journalctl": ["journalctl", "--version"],
          "cat": ["cat", "/dev/null"], "sh": ["sh", "-c", "exit 0"]}
WHICH = 'for c; do command -v "$c" || echo "$c"; done'


def sudo_index(prefix: list[str]) -> int | None:
    """Where sudo is in the prefix (``sudo``, ``/usr/bin/sudo``), or None."""
    return next((i for i, word in enumerate(prefix) if os.path.basename(word) == "sudo"), None)


def needed(ctx: Context) -> list[str]:
    names = ["systemctl", "cat", "sh"]
    return names[:1] + ["journalctl"] * (ctx.host.log.kind == "journal") + names[1:]


async def check_sudo(ctx: Context) -> Result:
    server = ctx.host.server
    if not isinstance(server, SystemdServer):
        return Result(NAME, OK, "not needed: the process manager runs nothing through sudo")
    index = sudo_index(server.command_prefix)
    if index is None:
        return Result(NAME, OK, "not needed: server.command_prefix has no sudo")
    prefix = [*server.command_prefix[:index + 1], "-n", *server.command_prefix[index + 1:]]
    refused, missing = await _probe(ctx, prefix)
    ctx.sudo_refused = set(refused)
    if not refused:
        return Result(NAME, OK, f"{shlex.join(prefix)} runs {', '.join(needed(ctx))} without a password")
    if missing:
        also = " (you log in as root: it can go)" if ctx.user == "root" else ""
        return Result(NAME, FAIL, f"{prefix[index]} is not installed on the host ({refused['systemctl']})",
                      f"install sudo on the host, or drop it from server.command_prefix{also}")
    return Result(NAME, FAIL, _refusal(prefix, refused), await _fix(ctx, refused, _runas(prefix)))


async def _probe(ctx: Context, prefix: list[str]) -> tuple[dict[str, str], bool]:
    """The programs sudo -n refuses (with why), and whether sudo itself is missing."""
    refused: dict[str, str] = {}
    for name in needed(ctx):
        result = await ctx.run(Command.of([*prefix, *PROBES[name]], f"sudo -n {name}"))
        if not_found(result):  # the shell found no sudo: every program is refused alike
            return {other: last_line(result) for other in needed(ctx)}, True
        if not result.ok:
            refused[name] = last_line(result)
    return refused, False


def _refusal(prefix: list[str], refused: dict[str, str]) -> str:
    reasons = sorted(set(refused.values()))
    return f"{shlex.join(prefix)} refuses {', '.join(refused)} ({'; '.join(reasons)})"


def _runas(prefix: list[str]) -> str:
    """The user sudo runs as (``-u USER``), root by default."""
    for word, after in zip(prefix, prefix[1:]):
        if word == "-u":
            return after
    return next((word[2:] for word in prefix if word.startswith("-u") and len(word) > 2), "root")


async def _fix(ctx: Context, refused: dict[str, str], runas: str) -> str:
    user = ctx.user or "USER"
    result = await ctx.run(Command.of(script(WHICH, *refused), "find the programs sudo must allow"))
    paths = result.out.split() if result.ok else list(refused)
    return (f"allow {user} to run them without a password: add \"{user} ALL=({runas}) NOPASSWD: {', '.join(paths)}\" "
            f"with visudo -f /etc/sudoers.d/mtptui")
