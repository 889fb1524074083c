"""SGLang launch flags as SGLang reads them: per-version tables, argv and commands, FlagSet, resolution, diff.

The rules and the lint built on them are mtptui.engines.sglang.lint. No Textual here; the flags form of the dashboard
is built on both packages.
"""

from mtptui.engines.sglang.flags.command import parse_command, parse_words, render_argv, render_command
from mtptui.engines.sglang.flags.diff import Diff, DiffRow, EnvRow, diff_flagsets
from mtptui.engines.sglang.flags.effective import Effective, resolve_effective
from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.sglang.flags.flagset import FlagSet, Value, parse_argv
from mtptui.engines.sglang.flags.table import DEFAULT_VERSION, load_table, versions

__all__ = [
    "DEFAULT_VERSION",
    "Diff",
    "DiffRow",
    "EnvRow",
    "Effective",
    "FlagError",
    "FlagSet",
    "Value",
    "diff_flagsets",
    "load_table",
    "parse_argv",
    "parse_command",
    "parse_words",
    "render_argv",
    "render_command",
    "resolve_effective",
    "versions",
]
