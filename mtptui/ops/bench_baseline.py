"""Name a benchmark baseline the way the operator knows it: the host profile its launch flags match, and when.

A run records the launch flags the server reported (``/server_info``, by argparse dest, as SGLang resolved
them). A profile matches when every flag it writes that the run recorded has the same value; among the
matches the one agreeing on the most flags wins, and a tie names none (it would be a guess).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mtptui.errors import UserError
from mtptui.engines.sglang.flags import FlagSet
from mtptui.engines.sglang.flags.effective import show_value

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.engines.sglang.flags.table import FlagSpec

RESOLVED_AS = {"NEXTN": "EAGLE"}  # SGLang reports NEXTN (MTP heads) as the EAGLE algorithm it runs


def _same(written: Any, recorded: Any) -> bool:
    a, b = (show_value(value).lower() for value in (written, recorded))
    return RESOLVED_AS.get(a.upper(), a.upper()) == RESOLVED_AS.get(b.upper(), b.upper())


def _agreement(host: HostConfig, name: str, recorded: dict[str, Any]) -> int | None:
    """How many recorded flags the profile agrees on; None when it contradicts one."""
    try:
        flagset = FlagSet.from_profile(host.profile(name), host.sglang_version)
    except (UserError, ValueError):
        return None
    shared = 0
    written = [(_recorded_key(flagset.table[flag], recorded), value) for flag, value in flagset.flags.items()]
    if flagset.model_path is not None:
        written.append(("model_path", flagset.model_path))
    for key, value in written:
        if key in recorded and recorded[key] is not None:
            if not _same(value, recorded[key]):
                return None
            shared += 1
    return shared or None


def _recorded_key(spec: FlagSpec, recorded: dict[str, Any]) -> str:
    """The name a run recorded the flag under: its dest, or a spelling's (``tp_size`` for --tensor-parallel-size)."""
    names = [spec.dest, *(spelling.lstrip("-").replace("-", "_") for spelling in spec.option_strings)]
    return next((name for name in names if name in recorded), spec.dest)


def matching_profile(host: HostConfig | None, fingerprint: dict[str, Any]) -> str | None:
    """The host profile a run's launch flags match, or None (no host, no match, or two equally good)."""
    recorded = fingerprint.get("launch_flags") or {}
    if host is None or not recorded:
        return None
    scores = {name: _agreement(host, name, recorded) for name in sorted(host.profiles)}
    ranked = sorted(((score, name) for name, score in scores.items() if score is not None), reverse=True)
    if not ranked or len(ranked) > 1 and ranked[0][0] == ranked[1][0]:
        return None
    return ranked[0][1]


def when(run: dict[str, Any]) -> str:
    """``2026-11-29 14:50 UTC`` from a run's ``recorded_at`` (ISO-8601, UTC)."""
    stamp = str(run.get("recorded_at") or "")
    return stamp[:16].replace("T", " ") + " UTC" if len(stamp) >= 16 else stamp or "an unknown time"


def baseline_name(host: HostConfig | None, run: dict[str, Any]) -> str:
    """``profile restored, run 12 of 2026-11-29 14:50 UTC`` (or ``a launch matching no profile, ...``)."""
    profile = matching_profile(host, run.get("fingerprint") or {})
    who = f"profile {profile}" if profile else "a launch matching none of the host's profiles"
    return f"{who}, run {run.get('id')} of {when(run)}"
