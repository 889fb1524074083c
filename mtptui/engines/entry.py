"""How a server's command line starts its engine, for every engine: the one home of these rules.

A launch is ``[env] [VAR=x ...] [wrapper ...] ENTRY OPTIONS``: the entry is an interpreter running the engine's
module (``python3 -m sglang.launch_server``, ``/opt/v/bin/python -m vllm.entrypoints.openai.api_server``) or
its console script (``sglang serve``, ``vllm serve``; as a process, ``python /opt/v/bin/vllm serve``). A
profile's launch is rendered as its interpreter running the module. An engine names only its modules and
scripts (``Entries``); finding them, the interpreter, the environment in front and a ``sh -c`` wrapper are
read here, the same way for each.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Iterable

DEFAULT_PYTHON = "python3"
PYTHON = re.compile(r"python(?:\d+(?:\.\d+)*)?$")
NAME_VALUE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
SHELLS = ("sh", "bash", "dash", "zsh")


def program(word: str) -> str:
    """A program word's name without its directory (``/usr/bin/python3.11`` -> ``python3.11``)."""
    return PurePosixPath(word).name


def is_python(word: str) -> bool:
    return bool(PYTHON.match(program(word)))


def module_words(python: str | None, module: str) -> list[str]:
    """The entry running ``module`` with ``python`` (python3 when the profile names none)."""
    return [python or DEFAULT_PYTHON, "-m", module]


def module_entry(python: str | None, module: str) -> str:
    """``module_words`` as shell words, the form a launch keeps its entry in."""
    return shlex.join(module_words(python, module))


def entry_python(entry: list[str]) -> str | None:
    """The interpreter of a ``PYTHON ... -m MODULE`` entry (None for a console script)."""
    return entry[0] if "-m" in entry else None


def shell_script(argv: list[str]) -> str | None:
    """The SCRIPT of a ``sh -c SCRIPT`` wrapper (sh, bash, dash or zsh alike); None when argv is not one."""
    if argv and program(argv[0]) in SHELLS and "-c" in argv[1:-1]:
        return argv[argv.index("-c") + 1]
    return None


def prefix_env(words: Iterable[tuple[str, bool]]) -> dict[str, str]:
    """Assignments before the program, from (word, is an assignment) pairs: ``VAR=x`` words, and the arguments of
    an ``env`` wrapper."""
    env: dict[str, str] = {}
    after_env = False
    for text, assignment in words:
        if program(text) == "env":
            after_env = True
        elif assignment or (after_env and NAME_VALUE.match(text)):
            found = NAME_VALUE.match(text)
            assert found is not None  # an assignment word is NAME=VALUE
            env[found.group(1)] = found.group(2)
    return env


def assignments(words: list[str]) -> list[tuple[str, bool]]:
    """Words already split (ExecStart=, /proc/PID/cmdline) with whether each is a ``VAR=x`` assignment."""
    return [(word, bool(NAME_VALUE.match(word))) for word in words]


@dataclass(frozen=True)
class Entries:
    """An engine's entries: ``modules`` (each a module and the subcommand words after it, e.g.
    ``("vllm.entrypoints.cli.main", "serve")``) and ``scripts`` (a console script and its subcommand, e.g.
    ``("vllm", "serve")``)."""

    modules: tuple[tuple[str, ...], ...]
    scripts: tuple[tuple[str, ...], ...]

    def find(self, words: list[str]) -> tuple[int, int] | None:
        """(start, end) of the entry in ``words``: the first module run by an interpreter before it, or script
        (with the interpreter that runs it, when one does); None when the words start neither."""
        for index, word in enumerate(words):
            for script in self.scripts:
                if program(word) == script[0] and words[index + 1:index + len(script)] == list(script[1:]):
                    start = index - 1 if index and is_python(words[index - 1]) else index
                    return start, index + len(script)
            if word == "-m":
                module = next((m for m in self.modules if words[index + 1:index + 1 + len(m)] == list(m)), None)
                if module is not None:
                    python = next((i for i in range(index - 1, -1, -1) if is_python(words[i])), None)
                    return (python, index + 1 + len(module)) if python is not None else None
        return None
