"""A vLLM launch as words: `vllm serve MODEL ...`, `python -m vllm.entrypoints.openai.api_server --model M ...`.

vLLM's entries (ENTRIES) are found, with the environment in front, by the rules every engine shares
(mtptui.engines.entry): the program may be a path (`/opt/v/bin/vllm`, `/usr/bin/python3.11`), the console
script may show as `python /opt/v/bin/vllm serve`. `serve` says whether `vllm serve`'s own rewriting applies
(its positional model and the move of `--model`); the older API-server modules parse the same options without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mtptui.engines.entry import Entries, assignments, prefix_env

API_SERVER = "vllm.entrypoints.openai.api_server"
ENTRIES = Entries(modules=((API_SERVER,), ("vllm.entrypoints.api_server",), ("vllm.entrypoints.cli.main", "serve")),
                  scripts=(("vllm", "serve"),))


@dataclass(frozen=True)
class VllmLaunch:
    """The launch's environment, its entry (the words before the options) and the options for vLLM."""

    args: list[str]
    entry: list[str]
    env: dict[str, str] = field(default_factory=dict)
    serve: bool = True


def split_command(words: list[str]) -> VllmLaunch | None:
    """The launch in ``words``, or None when they do not start vLLM."""
    found = ENTRIES.find(words)
    if found is None:
        return None
    start, end = found
    entry = words[start:end]
    return VllmLaunch(words[end:], entry, prefix_env(assignments(words[:start])), serve=entry[-1] == "serve")

