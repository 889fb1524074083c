"""Drift: how the launch that runs differs from the host's known-good profile, in the health line's words.

The comparison is the diff's (``mtptui.sglang.flags.diff_flagsets``: aliases, renames and SGLang's own
resolution of auto values); this module orders its rows by what decides speed first and names them shortly
(``steps 1≠3``), so the first ones survive a narrow terminal.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.config import HostConfig
from mtptui.sglang.flags import FlagError, FlagSet, diff_flagsets
from mtptui.text import visible

SHORT_NAMES = {
    "--speculative-num-steps": "steps", "--speculative-num-draft-tokens": "draft",
    "--speculative-eagle-topk": "topk", "--speculative-algorithm": "spec", "--max-running-requests": "max-running",
    "--mem-fraction-static": "mem-fraction", "--context-length": "context", "--mamba-full-memory-ratio": "mamba-ratio",
    "--mamba-scheduler-strategy": "mamba-strategy", "--tp-size": "tp", "--model-path": "model",
}
ORDER = tuple(SHORT_NAMES)


@dataclass(frozen=True)
class DriftItem:
    """One difference: short name, the running value, the known-good value (as SGLang resolves them)."""

    name: str
    running: str
    good: str

    def __str__(self) -> str:
        return f"{self.name} {self.running}≠{self.good}"


@dataclass(frozen=True)
class Drift:
    """The running launch against profile ``profile``; ``items`` ordered by weight, env variables last."""

    profile: str
    items: tuple[DriftItem, ...]

    @property
    def count(self) -> int:
        return len(self.items)


def one_line(text: str) -> str:
    """A value from the host's command line, safe on one terminal line (controls shown escaped, mtptui.text)."""
    return visible(text).replace("\n", "\\n").replace("\t", " ")


def short_value(resolved: str | None) -> str:
    """``2 (auto)`` → ``2``; ``auto (from GPU memory)`` → ``auto``; ``unset (default 0.9)`` → ``default``."""
    if resolved is None:
        return "unset"
    for word in ("unset (default", "unset", "auto (", "error ("):
        if resolved.startswith(word):
            return word.split(" ")[0] if word != "unset (default" else "default"
    return one_line(resolved.removesuffix(" (auto)"))


def short_name(flag: str) -> str:
    return SHORT_NAMES.get(flag) or flag.removeprefix("--").removeprefix("speculative-")


def known_good_drift(host: HostConfig | None, running: FlagSet | None) -> Drift | None:
    """The running launch vs the known-good profile; None when either is unknown or cannot be read."""
    if host is None or running is None or host.known_good is None:
        return None
    try:
        good = FlagSet.from_profile(host.profile(host.known_good), host.sglang_version)
        diff = diff_flagsets([("running", running), ("known-good", good)])
    except FlagError:
        return None
    rows = sorted(diff.rows, key=lambda row: ORDER.index(row.flag) if row.flag in ORDER else len(ORDER))
    items = [DriftItem(short_name(row.flag), short_value(row.resolved[0]), short_value(row.resolved[1]))
             for row in rows]
    items += [DriftItem(one_line(env.var), one_line(env.values[0] or "unset"), one_line(env.values[1] or "unset"))
              for env in diff.env]
    return Drift(host.known_good, tuple(items))
