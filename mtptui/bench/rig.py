"""What a run was measured on: the engine and its version, the GPU model and count, the driver and the TP size.

Every run's fingerprint carries its ``rig``. A run measured on another rig is *stale* for this one: its numbers say
what that rig did, not what this one does, so the comparison leaves it out and says so ("re-bench owed"). A fact
one side does not know (a run without GPU facts: ``--url``, a host without nvidia-smi, a record from before rigs
were stored) is not a difference. A record from before the engine was stored says ``sglang_version``: it was
measured on SGLang.
"""

from __future__ import annotations

from typing import Any

RIG_FIELDS = ("engine", "engine_version", "gpu_model", "gpu_count", "driver", "tp_size")
LABELS = {"engine": "engine", "gpu_model": "GPU", "gpu_count": "GPUs", "driver": "driver", "tp_size": "TP"}
OLD_VERSION = "sglang_version"  # the version's key before the engine was stored (the engine was SGLang)


def make_rig(version: Any, launch_flags: dict[str, Any], gpus: dict[str, Any] | None,
             engine: str | None = None) -> dict[str, Any]:
    """The rig of a run: the server's engine (its registry name; None: not recognised), version and TP size, the
    host's GPUs (``{"model", "count", "driver"}``)."""
    gpus = gpus or {}
    tp = launch_flags.get("tp_size")
    return {"engine": _known(engine), "engine_version": version, "gpu_model": gpus.get("model"),
            "gpu_count": gpus.get("count"),
            "driver": gpus.get("driver"), "tp_size": tp if isinstance(tp, int) and not isinstance(tp, bool) else None}


def rig_of(fingerprint: dict[str, Any]) -> dict[str, Any]:
    """A fingerprint's rig; an older record's from its server version and launch flags (GPUs unknown)."""
    rig = fingerprint.get("rig")
    engine = fingerprint.get("engine") if isinstance(fingerprint.get("engine"), str) else None
    if isinstance(rig, dict):
        read = {name: rig.get(name) for name in RIG_FIELDS}
        if OLD_VERSION in rig and read["engine_version"] is None:
            read["engine"], read["engine_version"] = read["engine"] or "sglang", rig[OLD_VERSION]
        return read
    return make_rig(fingerprint.get("server_version"), fingerprint.get("launch_flags") or {}, None,
                    _known(engine))


def _known(name: str | None) -> str | None:
    from mtptui.engines.registry import ENGINES

    return name if name in ENGINES else None


def label(name: str, rig: dict[str, Any]) -> str:
    """How a rig's field is said: its version by the engine's display name ("vLLM 0.32.0 now")."""
    from mtptui.engines.registry import engine

    if name == "engine_version":
        return engine(_known(rig.get("engine"))).label
    return LABELS[name]


def rig_differences(now: dict[str, Any], then: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, now, then) for each fact both rigs know and that differs."""
    return [(name, now.get(name), then.get(name)) for name in RIG_FIELDS
            if now.get(name) is not None and then.get(name) is not None and now.get(name) != then.get(name)]


def describe_differences(rows: list[tuple[str, Any, Any]], rig: dict[str, Any] | None = None) -> str:
    """E.g. "SGLang 0.5.23 now, 0.5.12.post1 then; TP 2 now, 4 then" (the version named by ``rig``'s engine)."""
    return "; ".join(f"{label(name, rig or {})} {now} now, {then} then" for name, now, then in rows)


def split_by_rig(runs: list[dict[str, Any]], rig: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(runs measured on this rig, stale runs measured on another)."""
    fresh: list[dict[str, Any]] = []
    stale: list[dict[str, Any]] = []
    for run in runs:
        (stale if rig_differences(rig, rig_of(run["fingerprint"])) else fresh).append(run)
    return fresh, stale


def stale_sentence(stale: list[dict[str, Any]], rig: dict[str, Any]) -> str | None:
    """Why earlier runs are left out, naming the newest one's differences; None when none are."""
    if not stale:
        return None
    rows = rig_differences(rig, rig_of(stale[-1]["fingerprint"]))
    what = "1 earlier run" if len(stale) == 1 else f"{len(stale)} earlier runs"
    return (f"re-bench owed: {what} of this workload measured on another rig ({describe_differences(rows, rig)}), "
            "not compared")
