"""Whether SGLang runs its speculative workers "v2" (overlap scheduling) or "v1": a step-cost comparison holds
only between runs of the same kind (sglang-flags.md §2.3).

0.5.12.post1: the EAGLE family (EAGLE, EAGLE3, STANDALONE; NEXTN runs as EAGLE) uses v2 unless top-k > 1,
``SGLANG_ENABLE_SPEC_V2`` is false or overlap scheduling is off, and each of those turns overlap scheduling off,
so the resolved ``disable_overlap_schedule`` tells. 0.5.23 always uses v2 for the family (the variable is gone).
Other algorithms and releases: None (no such switch).
"""

from __future__ import annotations

from typing import Any

from mtptui.engines.sglang.flags.spec_values import EAGLE_FAMILY

ENV = "SGLANG_ENABLE_SPEC_V2"
FALSE_WORDS = ("0", "false", "no", "off", "")


def spec_v2(version: str | None, algorithm: object, overlap_disabled: bool) -> bool | None:
    if str(algorithm or "").upper() not in EAGLE_FAMILY | {"NEXTN"}:
        return None
    if version == "0.5.23":
        return True
    return not overlap_disabled if version == "0.5.12.post1" else None


def from_server_args(version: str | None, args: dict[str, Any]) -> bool | None:
    """From ``/server_info``'s resolved arguments."""
    return spec_v2(version, args.get("speculative_algorithm"), bool(args.get("disable_overlap_schedule")))


def from_launch(version: str | None, algorithm: object, topk: object, overlap_disabled: bool,
                env: dict[str, str]) -> bool | None:
    """From a launch as written: its top-k, ``--disable-overlap-schedule`` and ``SGLANG_ENABLE_SPEC_V2``."""
    off = overlap_disabled or (isinstance(topk, int) and topk > 1) or \
        (ENV in env and env[ENV].strip().lower() in FALSE_WORDS)
    return spec_v2(version, algorithm, off)
