"""`mtptui check HOST`: a doctor for a host, one line per check with what to do when it fails.

    report = await run_checks(session, host_file)
    print(render_text(report, color=sys.stdout.isatty()))

The checks (mtptui.ops.checks) run in order, each on what the ones before found: SSH, sudo, the server (unit or
process), the log source, the API through the tunnel, the gateway (when the host file names one), nvidia-smi, the
model paths. When SSH fails the rest are
reported as skipped, not run. A transport error inside a check is that check's failure, never a traceback.
Nothing on the host is changed: the session is opened read-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from mtptui.errors import UserError
from mtptui.ops.checks import FAIL, OK, SKIP, WARN, Check, Context, Result, Status
from mtptui.ops.checks import gateway
from mtptui.ops.checks.api import check_api
from mtptui.ops.checks.gpu import check_gpu
from mtptui.ops.checks.log import check_log
from mtptui.ops.checks.model import check_model
from mtptui.ops.checks.server import check_server
from mtptui.ops.checks.ssh import check_ssh
from mtptui.ops.checks.sudo import check_sudo
from mtptui.remote.errors import ConnectionLost
from mtptui.text import visible

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession

CHECKS: list[tuple[str, Check]] = [
    ("ssh", check_ssh), ("sudo", check_sudo), ("server", check_server), ("log", check_log),
    ("api", check_api), (gateway.NAME, gateway.check_gateway), ("nvidia-smi", check_gpu), ("model", check_model),
]
APPLIES: dict[str, Callable[[Context], bool]] = {gateway.NAME: gateway.applies}  # checks for some hosts only
MARKS: dict[Status, str] = {OK: "ok", FAIL: "FAIL", WARN: "warn", SKIP: "skip"}
COLORS: dict[Status, str] = {OK: "32", FAIL: "1;31", WARN: "33", SKIP: "2"}


@dataclass
class Report:
    """Every check of one host, in order; ``ok`` when none failed or was skipped (warnings pass)."""

    host: str
    checks: list[Result]
    engine: str = "sglang"  # the host's engine (its `engine` in the host file)

    @property
    def ok(self) -> bool:
        return all(check.status in (OK, WARN) for check in self.checks)

    def to_json(self) -> dict[str, object]:
        return {"host": self.host, "engine": self.engine, "ok": self.ok,
                "checks": [check.to_json() for check in self.checks]}


async def run_checks(session: HostSession, host_file: Path | None = None) -> Report:
    """Run every check in order on ``session``; after a failed SSH check the others are skipped."""
    ctx = Context(session, host_file)
    results: list[Result] = []
    for name, check in CHECKS:
        applies = APPLIES.get(name)
        if applies is not None and not applies(ctx):
            continue
        if results and results[0].status == FAIL:
            results.append(Result(name, SKIP, "skipped: needs SSH"))
            continue
        results.append(await _guarded(name, check, ctx))
    return Report(session.host.name, results, session.host.engine)


async def _guarded(name: str, check: Check, ctx: Context) -> Result:
    """The check's result; an error on the way (lost connection, a command that failed or hung) is its failure."""
    try:
        return await check(ctx)
    except ConnectionLost as exc:
        return Result(name, FAIL, str(exc), "check the connection to the host, then run the check again")
    except UserError as exc:
        return Result(name, FAIL, str(exc), "run the command it names on the host to see why, then check again")


def render_text(report: Report, color: bool = False) -> str:
    """One line per check: mark, name, what was found, and "-> what to do" when there is something to do."""
    width = max(len(check.name) for check in report.checks)
    lines = [_line(check, width, color) for check in report.checks]
    failed = [check.name for check in report.checks if check.status == FAIL]
    passed = sum(check.status in (OK, WARN) for check in report.checks)
    summary = visible(f"{report.host}: {passed} of {len(report.checks)} checks pass")
    lines.append(summary + (f"; failed: {', '.join(failed)}" if failed else ""))
    return "\n".join(lines)


def _line(check: Result, width: int, color: bool) -> str:
    mark = f"{MARKS[check.status]:<4}"
    if color:
        mark = f"\x1b[{COLORS[check.status]}m{mark}\x1b[0m"
    fix = f" -> {check.fix}" if check.fix and check.status != OK else ""
    return f"{mark}  {check.name:<{width}}  " + visible(f"{check.detail}{fix}")  # the host's words: shown, not obeyed
