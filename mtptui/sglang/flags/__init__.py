"""SGLang launch flags: parse and render commands, per-version tables, SGLang's rules, lint and diff.

No Textual here; the flags form of the dashboard is built on this package.
"""

from mtptui.sglang.flags.check import check_launch
from mtptui.sglang.flags.command import parse_command, render_argv, render_command
from mtptui.sglang.flags.effective import Effective, resolve_effective
from mtptui.sglang.flags.errors import FlagError
from mtptui.sglang.flags.flagset import FlagSet, Value, parse_argv
from mtptui.sglang.flags.rules import Finding, lint
from mtptui.sglang.flags.table import DEFAULT_VERSION, load_table, versions

__all__ = [
    "DEFAULT_VERSION",
    "Effective",
    "Finding",
    "FlagError",
    "FlagSet",
    "Value",
    "check_launch",
    "lint",
    "load_table",
    "parse_argv",
    "parse_command",
    "render_argv",
    "render_command",
    "resolve_effective",
    "versions",
]
