"""SGLang launch flags: parse and render commands, per-version tables, SGLang's rules, lint and diff.

No Textual here; the flags form of the dashboard is built on this package.
"""

from mtptui.sglang.flags.check import check_launch
from mtptui.sglang.flags.check import lint_argv, lint_flagset, lint_profile
from mtptui.sglang.flags.command import parse_command, parse_words, render_argv, render_command
from mtptui.sglang.flags.diff import Diff, DiffRow, EnvRow, diff_flagsets
from mtptui.sglang.flags.effective import Effective, resolve_effective
from mtptui.sglang.flags.errors import FlagError
from mtptui.sglang.flags.flagset import FlagSet, Value, parse_argv
from mtptui.sglang.flags.rules import Finding, lint
from mtptui.sglang.flags.table import DEFAULT_VERSION, load_table, versions

__all__ = [
    "DEFAULT_VERSION",
    "Diff",
    "DiffRow",
    "EnvRow",
    "Effective",
    "Finding",
    "FlagError",
    "FlagSet",
    "Value",
    "check_launch",
    "diff_flagsets",
    "lint",
    "lint_argv",
    "lint_flagset",
    "lint_profile",
    "load_table",
    "parse_argv",
    "parse_command",
    "parse_words",
    "render_argv",
    "render_command",
    "resolve_effective",
    "versions",
]
