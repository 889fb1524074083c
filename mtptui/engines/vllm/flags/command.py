"""A vLLM launch as words: `vllm serve MODEL ...`, `python -m vllm.entrypoints.openai.api_server --model M ...`.

Environment assignments (and `env`) in front are kept apart; the program may be a path (`/opt/v/bin/vllm`,
`/usr/bin/python3.11`). `serve` says whether `vllm serve`'s own rewriting applies (its positional model and the
move of `--model`); the older API-server module parses the same options without it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
PYTHON = re.compile(r"python(?:\d+(?:\.\d+)?)?$")
MODULES = {"vllm.entrypoints.openai.api_server": False, "vllm.entrypoints.api_server": False,
           "vllm.entrypoints.cli.main": True}


@dataclass(frozen=True)
class VllmLaunch:
    """The launch's environment, its entry (the words before the options) and the options for vLLM."""

    args: list[str]
    entry: list[str]
    env: dict[str, str] = field(default_factory=dict)
    serve: bool = True


def _program(word: str) -> str:
    return PurePosixPath(word).name


def split_command(words: list[str]) -> VllmLaunch | None:
    """The launch in ``words``, or None when they do not start vLLM."""
    env: dict[str, str] = {}
    index = 0
    while index < len(words) and (ASSIGNMENT.match(words[index]) or words[index] == "env"):
        if words[index] != "env":
            name, _, value = words[index].partition("=")
            env[name] = value
        index += 1
    rest = words[index:]
    if len(rest) >= 2 and _program(rest[0]) == "vllm" and rest[1] == "serve":
        return VllmLaunch(rest[2:], rest[:2], env)
    if len(rest) >= 3 and PYTHON.match(_program(rest[0])) and _program(rest[1]) == "vllm" and rest[2] == "serve":
        return VllmLaunch(rest[3:], rest[:3], env)  # the console script as its process shows it: python vllm serve
    if len(rest) >= 3 and PYTHON.match(_program(rest[0])) and rest[1] == "-m" and rest[2] in MODULES:
        serve = MODULES[rest[2]]
        if serve:
            if rest[3:4] != ["serve"]:
                return None
            return VllmLaunch(rest[4:], rest[:4], env)
        return VllmLaunch(rest[3:], rest[:3], env, serve=False)
    return None
