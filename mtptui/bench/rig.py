"""What a run was measured on: the SGLang version, the GPU model and count, the driver and the TP size.

Every run's fingerprint carries its ``rig``. A run measured on another rig is *stale* for this one: its numbers say
what that rig did, not what this one does, so the comparison leaves it out and says so ("re-bench owed"). A fact
one side does not know (a run without GPU facts: ``--url``, a host without nvidia-smi, a record from before rigs
were stored) is not a difference.
"""

from __future__ import annotations

from typing import Any

RIG_FIELDS = ("sglang_version", "gpu_model", "gpu_count", "driver", "tp_size")
LABELS = {"sglang_version": "SGLang", "gpu_model": "GPU", "gpu_count": "GPUs", "driver": "driver", "tp_size": "TP"}


def make_rig(version: Any, launch_flags: dict[str, Any], gpus: dict[str, Any] | None) -> dict[str, Any]:
    """The rig of a run: the server's version and TP size, the host's GPUs (``{"model", "count", "driver"}``)."""
    gpus = gpus or {}
    tp = launch_flags.get("tp_size")
    return {"sglang_version": version, "gpu_model": gpus.get("model"), "gpu_count": gpus.get("count"),
            "driver": gpus.get("driver"), "tp_size": tp if isinstance(tp, int) and not isinstance(tp, bool) else None}


def rig_of(fingerprint: dict[str, Any]) -> dict[str, Any]:
    """A fingerprint's rig; an older record's from its server version and launch flags (GPUs unknown)."""
    rig = fingerprint.get("rig")
    if isinstance(rig, dict):
        return {name: rig.get(name) for name in RIG_FIELDS}
    return make_rig(fingerprint.get("server_version"), fingerprint.get("launch_flags") or {}, None)


def rig_differences(now: dict[str, Any], then: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, now, then) for each fact both rigs know and that differs."""
    return [(name, now.get(name), then.get(name)) for name in RIG_FIELDS
            if now.get(name) is not None and then.get(name) is not None and now.get(name) != then.get(name)]


def describe_differences(rows: list[tuple[str, Any, Any]]) -> str:
    """E.g. "SGLang 0.5.23 now, 0.5.12.post1 then; TP 2 now, 4 then"."""
    return "; ".join(f"{LABELS[name]} {now} now, {then} then" for name, now, then in rows)


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
    return (f"re-bench owed: {what} of this workload measured on another rig ({describe_differences(rows)}), "
            "not compared")
