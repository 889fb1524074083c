"""What a server start does with its arguments: parse them, then fail on the first SGLang error."""

from __future__ import annotations

from mtptui.sglang.flags.errors import FlagError
from mtptui.sglang.flags.flagset import FlagSet, parse_argv
from mtptui.sglang.flags.rules import lint
from mtptui.sglang.flags.table import DEFAULT_VERSION


def check_launch(argv: list[str], version: str = DEFAULT_VERSION, model_arch: str | None = None) -> FlagSet:
    """The flag set a server would run with; FlagError with the server's last words when it would exit.

    The message is argparse's (``sglang serve: error: ...``) or the last line of SGLang's traceback
    (``AssertionError``, ``ValueError: Unknown speculative algorithm name: FOO``, ...).
    """
    flagset = parse_argv(list(argv), version)
    for finding in lint(flagset, model_arch):
        if finding.stops_server:
            raise FlagError(finding.sglang_message or finding.message, flag=finding.flag, fix=finding.fix)
    return flagset
