"""The report of `mtptui check`: one line per check with its mark, a fix only where there is something to do,
colour only when asked (a terminal), JSON as the contract says, and an error inside a check is that check's line."""

from __future__ import annotations

import asyncio

from mtptui.ops.check import Report, _guarded, render_text
from mtptui.ops.checks import FAIL, OK, SKIP, WARN, Result
from mtptui.remote.errors import CommandFailed, ConnectionLost

REPORT = Report("gpu1", [
    Result("ssh", OK, "ops@gpu1: logged in as ops"),
    Result("log", WARN, "the journal of x.service has no entries", "set log.kind = \"file\""),
    Result("nvidia-smi", FAIL, "not found", "install the NVIDIA driver utilities"),
    Result("model", SKIP, "skipped: needs SSH"),
])


def test_text_has_a_mark_a_name_what_was_found_and_the_fix():
    assert render_text(REPORT).splitlines() == [
        "ok    ssh         ops@gpu1: logged in as ops",
        'warn  log         the journal of x.service has no entries -> set log.kind = "file"',
        "FAIL  nvidia-smi  not found -> install the NVIDIA driver utilities",
        "skip  model       skipped: needs SSH",
        "gpu1: 2 of 4 checks pass; failed: nvidia-smi",
    ]


def test_colour_marks_only_the_mark():
    lines = render_text(REPORT, color=True).splitlines()
    assert lines[2] == "\x1b[1;31mFAIL\x1b[0m  nvidia-smi  not found -> install the NVIDIA driver utilities"
    assert lines[0].startswith("\x1b[32mok  \x1b[0m  ssh ")
    assert "\x1b" not in render_text(REPORT)


def test_warnings_pass_and_a_skip_or_a_failure_does_not():
    assert Report("h", [Result("a", OK, ""), Result("b", WARN, "", "x")]).ok
    assert not Report("h", [Result("a", OK, ""), Result("b", SKIP, "")]).ok
    assert not REPORT.ok
    assert REPORT.to_json() == {"host": "gpu1", "engine": "sglang", "ok": False, "checks": [
        {"name": "ssh", "status": "ok", "detail": "ops@gpu1: logged in as ops", "fix": None},
        {"name": "log", "status": "warn", "detail": "the journal of x.service has no entries",
         "fix": "set log.kind = \"file\""},
        {"name": "nvidia-smi", "status": "fail", "detail": "not found", "fix": "install the NVIDIA driver utilities"},
        {"name": "model", "status": "skip", "detail": "skipped: needs SSH", "fix": None}]}


def test_an_error_inside_a_check_is_that_checks_failure():
    async def lost(ctx):
        raise ConnectionLost("lost the connection to ops@gpu1: connection reset")

    async def failed(ctx):
        raise CommandFailed("read x.service's state failed: Access denied", 1)

    assert asyncio.run(_guarded("server", lost, None)) == Result(
        "server", FAIL, "lost the connection to ops@gpu1: connection reset",
        "check the connection to the host, then run the check again")
    result = asyncio.run(_guarded("log", failed, None))
    assert (result.status, result.detail) == (FAIL, "read x.service's state failed: Access denied")
