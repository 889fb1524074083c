"""A vLLM launch profile as the words that start it, and as a systemd unit that runs them.

A profile's flags are written as in the host file (long names without `--`): `true` is the bare flag, `false`
its `--no-` form where vLLM has one (and nothing where it does not), a list gives one value after the flag per
item (nargs='+'), a table one JSON object (`speculative-config = { method = "mtp", ... }`), anything else one
value (`speculative-config` may also be the JSON text itself). The launch is the
profile's interpreter running vLLM's API server module (`PYTHON -m vllm.entrypoints.openai.api_server --model
MODEL ...`), which needs no `vllm` script on the PATH.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Protocol, Sequence

from mtptui.engines.entry import module_words
from mtptui.engines.vllm.flags.command import API_SERVER
from mtptui.engines.vllm.flags.table import DEFAULT_VERSION, load_table
from mtptui.engines.sglang.unit.syntax import quote_word
from mtptui.engines.sglang.unit.write import environment_lines

FlagValue = bool | int | float | str | Sequence[str] | Mapping[str, Any]


class Profile(Protocol):
    """What a launch profile says (mtptui.config.LaunchProfile)."""

    @property
    def model_path(self) -> str: ...

    @property
    def flags(self) -> Mapping[str, FlagValue]: ...

    @property
    def env(self) -> Mapping[str, str]: ...

    @property
    def python(self) -> str: ...


def flag_words(flags: Mapping[str, FlagValue], version: str = DEFAULT_VERSION) -> list[str]:
    """The flags as vLLM's command line words, in the profile's order."""
    negations = {o for option in load_table(version).options for o in option.options if o.startswith("--no-")}
    words: list[str] = []
    for name, value in flags.items():
        flag = f"--{name}"
        if value is True:
            words.append(flag)
        elif value is False:
            words += [f"--no-{name}"] if f"--no-{name}" in negations else []
        elif isinstance(value, (list, tuple)):
            words += [flag, *map(str, value)]
        elif isinstance(value, Mapping):
            words += [flag, json.dumps(value)]
        else:
            words += [flag, str(value)]
    return words


def launch_words(profile: Profile, version: str = DEFAULT_VERSION) -> list[str]:
    """`PYTHON -m vllm.entrypoints.openai.api_server --model MODEL FLAGS...`."""
    options = flag_words(profile.flags, version)
    return [*module_words(profile.python, API_SERVER), "--model", profile.model_path, *options]


def unit_text(skeleton: str, words: list[str], env: Mapping[str, str]) -> str:
    """``skeleton`` (a unit whose [Service] has a placeholder `ExecStart=`) running ``words``, one option per
    continuation line, with one `Environment=` line per variable before it."""
    groups: list[list[str]] = [[]]
    for word in words:
        if word.startswith("--"):
            groups.append([])
        groups[-1].append(word)
    parts = [" ".join(quote_word(w) for w in group) for group in groups]
    exec_start = "ExecStart=" + " \\\n    ".join(parts) + "\n"
    out: list[str] = []
    for line in skeleton.splitlines(keepends=True):
        out += [*environment_lines(dict(env)), exec_start] if line.startswith("ExecStart=") else [line]
    return "".join(out)
