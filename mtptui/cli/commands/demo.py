"""`mtptui demo`: the dashboard on an embedded simulated host."""

from __future__ import annotations

from mtptui.cli.commands._common import add, not_implemented

NAME = "demo"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "dashboard on a simulated SGLang host: no GPU, no SSH, no config needed")
    p.add_argument("--theme", default=None, help="theme name (see themes/)")
    p.set_defaults(run=run)


def run(args) -> int:
    return not_implemented("the demo dashboard")
