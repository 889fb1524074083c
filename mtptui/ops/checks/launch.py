"""A launch command line read loosely: does it start the host's engine, with which model, and does that engine's
parser (of the host's version) accept its flags. A flag that the version refuses is a warning, not a reason to
call it foreign. The engine's own reader judges (its ``Launches`` in mtptui.engines.registry)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from mtptui.engines.registry import Launches, launches
from mtptui.errors import UserError
from mtptui.ops.launches import flagset_from_argv
from mtptui.engines.entry import shell_script

MODEL_FLAGS = ("--model-path", "--model")


@dataclass(frozen=True)
class Launch:
    """What ``argv`` launches: ``engine`` False for a program other than the engine's; ``problem`` is why the
    flags do not parse."""

    engine: bool
    model: str | None = None
    problem: str | None = None


def read_launch(argv: list[str], version: str, model: Launches | None = None) -> Launch:
    """``argv`` read by the launches of ``model`` (default SGLang's)."""
    reader = model or launches(None)
    words = _unwrapped(argv)
    if words is None or reader.entry(words) is None:
        return Launch(False)
    try:
        return Launch(True, flagset_from_argv(argv, version, reader).model_path)
    except UserError as exc:  # the engine's refusal of a flag, in one sentence
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
