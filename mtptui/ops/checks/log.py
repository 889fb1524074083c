"""The log source: the unit's journal answers (``journalctl -u UNIT -n 1``), or the log file exists, is readable,
and the host has the python3 that runs mtptui's file reader."""

from __future__ import annotations

import shlex

from mtptui.config.models import ProcessServer
from mtptui.ops.checks import FAIL, OK, SKIP, WARN, Context, Result, last_line
from mtptui.remote.logsource import FileLog, JournalLog
from mtptui.remote.service_work import UnitView
from mtptui.remote.shell import Command, script

NAME = "log"
# argv: PATH PYTHON. Prints one word (missing, directory, unreadable, nopython) or "ok SIZE PYTHON_PATH".
PROBE_FILE = r"""[ -e "$1" ] || { echo missing; exit 0; }
[ -d "$1" ] && { echo directory; exit 0; }
[ -r "$1" ] || { echo unreadable; exit 0; }
py=$(command -v "$2") || { echo nopython; exit 0; }
echo "ok $(wc -c < "$1") $py"
""".strip()
HIDDEN = ("not seeing messages from other users", "No journal files were found", "Permission denied")


async def check_log(ctx: Context) -> Result:
    source = ctx.session.log_source
    if isinstance(source, JournalLog):
        return await check_journal(ctx, source)
    return await check_file(ctx, source)


async def check_journal(ctx: Context, source: JournalLog) -> Result:
    if "journalctl" in ctx.sudo_refused:
        return Result(NAME, SKIP, "skipped: needs sudo for journalctl")
    if ctx.unit_found is False:
        return Result(NAME, SKIP, f"skipped: systemd has no unit {source.unit}")
    result = await ctx.run(source.last_line())
    if not result.ok or any(text in result.err for text in HIDDEN):  # journalctl's hints go to stderr
        return Result(NAME, FAIL, f"{ctx.user or 'the login user'} cannot read the journal of {source.unit}: "
                                  f"{last_line(result)}", _journal_fix(ctx))
    lines = [line for line in result.out.splitlines() if line.strip() and line.strip() != "-- No entries --"]
    if not lines:
        return Result(NAME, WARN, f"the journal of {source.unit} has no entries",
                      f"if {source.unit} sends its output elsewhere (StandardOutput=), set log.kind = \"file\" and "
                      f"log.path to that file")
    return Result(NAME, OK, f"the journal of {source.unit} is readable (last: {_clip(lines[-1])})")


def _journal_fix(ctx: Context) -> str:
    user = ctx.user or "USER"
    return (f"add {user} to the systemd-journal group (sudo usermod -aG systemd-journal {shlex.quote(user)}), or "
            f"add sudo to server.command_prefix")


async def check_file(ctx: Context, source: FileLog) -> Result:
    result = await ctx.run(Command.of(script(PROBE_FILE, source.path, source.python), f"look at {source.path}"))
    words = result.check(f"looking at {source.path}").out.split()
    verdict = words[0] if words else "missing"
    if verdict == "ok":
        return Result(NAME, OK, f"{source.path} is readable ({_size(words[1])}); {words[2]} runs the reader")
    if verdict == "nopython":
        return Result(NAME, FAIL, f"{source.path} is readable but the host has no {source.python} for the reader",
                      f"install {source.python} on the host: mtptui follows the log file with a small python3 "
                      f"program")
    if verdict == "unreadable":
        user = ctx.user or "the login user"
        return Result(NAME, FAIL, f"{user} cannot read {source.path}",
                      f"make {source.path} readable by {user} (its group, or chmod o+r)")
    return _missing(ctx, source, verdict)


def _missing(ctx: Context, source: FileLog, verdict: str) -> Result:
    what = "is a directory" if verdict == "directory" else "does not exist"
    log_file = ctx.session.manager.pick(_LaunchLog())
    if log_file == source.path and ctx.server_running is False and verdict == "missing":
        return Result(NAME, OK, f"{source.path} does not exist yet: the next launch creates it")
    writes = f" (server.log_file is {log_file})" if log_file is not None and log_file != source.path else ""
    return Result(NAME, FAIL, f"{source.path} {what} on the host",
                  f"set log.path in {ctx.file_name} to the file the server writes{writes}")


class _LaunchLog:
    """The file the manager's launch writes the server's output to: none for a unit, server.log_file for a
    hand-started server."""

    def unit(self, unit: UnitView) -> str | None:
        return None

    def process(self, config: ProcessServer) -> str | None:
        return config.log_file


def _clip(text: str, width: int = 60) -> str:
    text = text.strip()
    return text if len(text) <= width else text[:width - 1] + "…"


def _size(text: str) -> str:
    size = int(text) if text.isdigit() else 0
    if size < 1024:
        return f"{size} bytes"
    return f"{size / 1024:.1f} KiB" if size < 1024 ** 2 else f"{size / 1024 ** 2:.1f} MiB"
