"""A launch command line read loosely: does it start SGLang, with which model, and does SGLang's parser (of the
host's version) accept its flags. A flag that the version refuses is a warning, not a reason to call it foreign."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from mtptui.ops.launches import flagset_from_argv
from mtptui.sglang.flags import FlagError
from mtptui.sglang.flags.command import find_entry, shell_script

MODEL_FLAGS = ("--model-path", "--model")


@dataclass(frozen=True)
class Launch:
    """What ``argv`` launches: ``sglang`` False for another program; ``problem`` is why the flags do not parse."""

    sglang: bool
    model: str | None = None
    problem: str | None = None


def read_launch(argv: list[str], version: str) -> Launch:
    words = _unwrapped(argv)
    if words is None or find_entry(words) is None:
        return Launch(False)
    try:
        return Launch(True, flagset_from_argv(argv, version).model_path)
    except FlagError as exc:
        return Launch(True, _model_word(words), str(exc))


def _unwrapped(argv: list[str]) -> list[str] | None:
    """The words of ``sh -c "COMMAND"`` (argv itself otherwise); None when COMMAND is not shell words."""
    script = shell_script(argv)
    if script is not None:
        try:
            return shlex.split(script)
        except ValueError:
            return None
    return argv


def _model_word(words: list[str]) -> str | None:
    for index, word in enumerate(words):
        if word in MODEL_FLAGS and index + 1 < len(words):
            return words[index + 1]
        if word.startswith(tuple(flag + "=" for flag in MODEL_FLAGS)):
            return word.split("=", 1)[1]
    return None
