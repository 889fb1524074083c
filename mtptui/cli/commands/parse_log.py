"""`mtptui parse-log`: SGLang log text to JSON-line events, or the final dashboard state."""

from __future__ import annotations

from mtptui.cli.commands._common import add, not_implemented

NAME = "parse-log"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "parse SGLang log text (stdin when no FILE) into JSON lines")
    p.add_argument("files", nargs="*", metavar="FILE", help="log files; stdin when none")
    p.add_argument("--summary", action="store_true", help="print one JSON object: the state after the input")
    p.set_defaults(run=run)


def run(args) -> int:
    return not_implemented("parse-log")
