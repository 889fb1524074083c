"""Drift: how the launch that runs differs from the host's known-good profile, in the health line's words.

The comparison is the diff of the host's engine (its ``Launches`` in mtptui.engines.registry: for SGLang
aliases, renames and its own resolution of auto values, for vLLM what the server said it resolved); this module
orders its rows by what decides speed first (the engine's short names, weightiest first) and names them shortly
(``steps 1≠3``), so the first ones survive a narrow terminal.

A launch that reads a file at start (vLLM's `--config FILE.yaml`) is compared by what the file says, not by its
path: the host feed reads each side's file on the host (mtptui.ops.feed.files, with the diff's and the restart's
reader, mtptui.ops.host_files) and carries the sides with their files' options on the status (``LaunchFiles``);
a file that cannot serve is the drift's own state, ``Drift.unreadable``, one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any, Mapping

from mtptui.config import HostConfig
from mtptui.engines.registry import SGLANG_SHORT, Launches, launches
from mtptui.errors import UserError
from mtptui.text import visible

SHORT_NAMES = SGLANG_SHORT  # the default engine's


@dataclass(frozen=True)
class DriftItem:
    """One difference: short name, the running value, the known-good value (as the host's engine resolves
    them)."""

    name: str
    running: str
    good: str

    def __str__(self) -> str:
        return f"{self.name} {self.running}≠{self.good}"


@dataclass(frozen=True)
class Drift:
    """The running launch against profile ``profile``; ``items`` ordered by weight, env variables last.
    ``unreadable``: why the two cannot be compared (a file one of them reads at start cannot be read or is no
    launch's options), in one sentence; no items then."""

    profile: str
    items: tuple[DriftItem, ...]
    unreadable: str | None = None

    @property
    def count(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class LaunchFiles:
    """The running launch and the known-good profile with the files they read at start applied, as the host feed
    read them on the host: for the launch ``running`` (the status's, before its files) and the profile ``profile``
    (a LaunchProfile, named ``name``), the launches with the files' options (``running_read``, ``good_read``), or
    ``unreadable``: the one sentence why a file cannot serve (which side, which file, why)."""

    name: str
    profile: Any
    running: Any
    running_read: Any = None
    good_read: Any = None
    unreadable: str | None = None

    def serves(self, host: HostConfig, running: Any) -> bool:
        """Whether these were read for this launch and the host's known-good profile as it is now (a profile
        saved since is read again by the next poll)."""
        return host.known_good == self.name and host.profiles.get(self.name) == self.profile and \
            running == self.running


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


def short_name(flag: str, names: Mapping[str, str] = SHORT_NAMES) -> str:
    return names.get(flag) or flag.removeprefix("--").removeprefix("speculative-")


def _value(model: Launches, flag: str, resolved: str | None) -> str:
    """A resolved value shortly: the engine's own short form where it has one, else ``short_value``'s."""
    said = model.short_value(flag, resolved) if model.short_value is not None and resolved is not None else None
    return one_line(said) if said is not None else short_value(resolved)


def known_good_drift(host: HostConfig | None, running: Any, files: LaunchFiles | None = None) -> Drift | None:
    """The running launch (the host's engine's flag set) vs the known-good profile; None when either is unknown
    or the profile cannot be read. With ``files`` read for them (the host feed's), each side as its files say:
    a file that cannot serve is ``Drift.unreadable``."""
    if host is None or running is None or host.known_good is None:
        return None
    model = launches(host.engine)
    read = files if files is not None and files.serves(host, running) else None
    if read is not None and read.unreadable is not None:
        return Drift(host.known_good, (), read.unreadable)
    try:
        good = read.good_read if read is not None else model.profile(host.profile(host.known_good),
                                                                     model.version(host))
        diff = model.diff([("running", read.running_read if read is not None else running), ("known-good", good)],
                          False)
    except UserError:  # a FlagError too: a profile the engine refuses
        return None
    names = model.short_names
    order = tuple(names)
    rows = sorted(diff.rows, key=lambda row: order.index(row.flag) if row.flag in order else len(order))
    items = [DriftItem(short_name(row.flag, names), _value(model, row.flag, row.resolved[0]),
                       _value(model, row.flag, row.resolved[1])) for row in rows]
    items += [DriftItem(one_line(env.var), one_line(env.values[0] or "unset"), one_line(env.values[1] or "unset"))
              for env in diff.env]
    return Drift(host.known_good, tuple(items))
