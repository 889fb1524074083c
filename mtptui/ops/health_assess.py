"""The health verdict from what the dashboard holds: the host's configuration, its status, the log's serving
figures and the bench history (``assess``); the pieces are in ``drift``, ``baseline`` and ``health``."""

from __future__ import annotations

from statistics import median
from typing import Any, Sequence

from mtptui.config import HostConfig
from mtptui.ops.baseline import accept_baseline, host_runs, no_spec_baseline, speed_baseline
from mtptui.ops.drift import known_good_drift
from mtptui.ops.feed import HostStatus
from mtptui.ops.health import Health, judge
from mtptui.sglang.flags import FlagSet, resolve_effective
from mtptui.sglang.state.serving import ServingStats

SPEC_FLAGS = ("--speculative-num-steps", "--speculative-num-draft-tokens", "--speculative-eagle-topk")


def running_shape(launch: FlagSet | None) -> tuple[str, ...] | None:
    """(steps, draft tokens, topk) as SGLang resolves them; None without speculative decoding."""
    if launch is None or launch.get("--speculative-algorithm") is None:
        return None
    effective = resolve_effective(launch)
    return tuple("" if effective.get(flag) is None or effective[flag].value is None else str(effective[flag].value)
                 for flag in SPEC_FLAGS)


def load_now(serving: ServingStats) -> int | None:
    """The usual number of running requests lately (the concurrency a baseline must have been measured at)."""
    busy = [count for count in serving.running if count]
    return round(median(busy)) if busy else None


def assess(host: HostConfig | None, status: HostStatus | None, serving: ServingStats,
           runs: Sequence[dict[str, Any]], down: str | None = None) -> Health:
    """Drift, speed, acceptance and the cost of speculation of what runs now on ``host`` (``down``: the server
    crashed or stopped)."""
    launch = status.launch if status else None
    version = (status.version if status else None) or (host.sglang_version if host else None)
    mine = host_runs(runs, host.name) if host else []
    load = load_now(serving)
    shape = running_shape(launch)
    speculative = launch is None or shape is not None
    return judge(known_good_drift(host, launch), list(serving.speed), list(serving.accept),
                 speed_base=speed_baseline(mine, version, load),
                 accept_base=accept_baseline(mine, version, shape) if shape else None,
                 no_spec_base=no_spec_baseline(mine, version, load) if shape else None,
                 speculative=speculative, down=down)

